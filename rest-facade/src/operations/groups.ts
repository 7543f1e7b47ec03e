/**
 * Group CRUD (devices, media, playlists, templates, schedules all have groups): one call gives the
 * four REST operations over a flat, depth-first group list query and the three group mutations.
 */
import type {
  ListDeviceGroupsQuery,
  ListMediaGroupsQuery,
  ListPlaylistGroupsQuery,
  ListScheduleGroupsQuery,
  ListTemplateGroupsQuery,
} from '@pylon/kit/generated/rest-operations.generated';
import { createOp, deleteOp, updateOp, type FieldMap } from './declare.js';
import { recordsAt, type GqlRecord } from './shape.js';
import type { RestOperation, RestSchema } from './types.js';
import { AppError, MAX_GROUP_DEPTH, snakeKeys } from '@pylon/kit';
import { errors, json, jsonBody, noContent, params, ref, type RestRoute, route } from './route.js';

/** One group of a flat group list, as every group-list document selects it. */
export interface GroupData {
  id: string;
  name: string;
  parentId: string | null;
  count: number;
  level: number;
}
type ItemOfList<L> = NonNullable<L> extends readonly (infer I)[] ? I : never;
/** Fails to compile when a group-list document stops selecting a member GroupData names. */
export type GroupListsSelectGroupData<
  T extends GroupData = ItemOfList<
    | ListDeviceGroupsQuery['deviceGroups']
    | ListMediaGroupsQuery['mediaGroups']
    | ListPlaylistGroupsQuery['playlistGroups']
    | ListTemplateGroupsQuery['templateGroups']
    | ListScheduleGroupsQuery['scheduleGroups']
  >,
> = T;

const GROUP_FIELDS = { name: 'name', parent_id: 'parentId' } as const satisfies FieldMap;

/** What every group document selects of a group, in answer order. */
const GROUP_SELECTION = ['id', 'name', 'parentId', 'count', 'level'] as const satisfies readonly (keyof GroupData)[];

/** The flat group list's document: always the flat, depth-first list; the facade nests it for tree=true (any depth) and applies id, take and page. */
const groupListDocument = (operationId: string, root: string) =>
  `query ${operationId}($tree: Boolean) {\n  ${root}(tree: $tree) {\n${GROUP_SELECTION.map((f) => `    ${f}\n`).join('')}  }\n}\n`;

/**
 * Body `finish` for inputs whose name is required while the reference's request schema allows null:
 * a null or missing name is a 400 naming `name` here, not a variable error without a field.
 */
export function requireName<I extends { readonly name?: unknown }>(input: I): I {
  if (input.name === null || input.name === undefined) throw new AppError('BAD_USER_INPUT', 'name is required', { field: 'name' });
  return input;
}

/** The reference's Group, as every group operation answers it. */
type RestGroup = RestSchema<'Group'>;

export const toRestGroup = (g: GqlRecord) => snakeKeys(g) as RestGroup;

/**
 * Nests a flat, depth-first group list (parents before children, each with its level) into trees
 * of any depth. Built here rather than by a nested query, whose depth the GraphQL limits would cap.
 */
export function nest(flat: GroupData[]): GqlRecord[] {
  const roots: GqlRecord[] = [];
  const lastAtLevel: GqlRecord[] = [];
  for (const g of flat) {
    const node: GqlRecord = { ...g, children: [] };
    const level = g.level;
    const parent = level > 0 ? lastAtLevel[level - 1] : undefined;
    if (parent) (parent.children as GqlRecord[]).push(node);
    else roots.push(node);
    lastAtLevel[level] = node;
    lastAtLevel.length = level + 1;
  }
  return roots;
}

/** The reference's Group members Pylon's groups do not keep (no group families, no per-organization counts): null in every group answered. */
const GROUP_EXTRA = { family: null, organization_count: null } as const;

/** How one area's groups appear in rest.yaml: the four routes differ only in these names. */
export interface GroupHttp {
  /** `/media/groups` */
  path: `/${string}`;
  tag: string;
  /**
   * What a group holds, singular and plural: `media`, `medias`. The singular names the GraphQL
   * fields too: the flat group list `mediaGroups` (its persisted document takes `tree: false`) and
   * the mutations `createMediaGroup`, `updateMediaGroup` (their payloads hold `group`), `deleteMediaGroup`.
   */
  noun: string;
  plural: string;
  /** The policy prefix: `Files` (Files_View, Files_Edit, Files_Delete). */
  policy: string;
  /** The component schemas of a group and of its create/update body. */
  schema: 'Group' | 'ContentGroup';
  request: 'GroupRequest' | 'ContentGroupRequest';
  /** `x-reference-deviation` of every group route of the area, when it has one. */
  deviation?: string;
}

type GroupOps = { list: RestOperation; create: RestOperation; update: RestOperation; remove: RestOperation };

/** The four group operations with their routes. */
function withRoutes(ops: GroupOps, http: GroupHttp): { [K in keyof GroupOps]: GroupOps[K] & { route: RestRoute } } {
  const { path, noun, plural, policy } = http;
  const common = { tags: [http.tag], ...(http.deviation ? { 'x-reference-deviation': http.deviation } : {}) };
  const body = jsonBody(http.request);
  return {
    list: route(
      `GET ${path}`,
      {
        ...common,
        summary: `${noun.charAt(0).toUpperCase()}${noun.slice(1)} groups.`,
        description: `Groups with their direct ${noun} count and nesting level (0 = top level), by name. With tree=true only top-level groups come back, each with its \`children\` (nested). \`take\` and \`page\` page over that list. Policy: ${policy}_View.`,
        parameters: [
          { name: 'tree', in: 'query', schema: { type: 'boolean', default: false } },
          ...params('IdQuery'),
          { name: 'take', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 1000 } },
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 1000000 } },
        ],
        responses: { '200': { description: 'The groups.', content: json({ type: 'array', items: ref(http.schema) }) }, ...errors(400, 401, 403, 500) },
      },
      ops.list,
    ),
    create: route(
      `POST ${path}`,
      {
        ...common,
        summary: `Create a ${noun} group.`,
        description: `\`parent_id\` nests it under another group of the account (at most ${MAX_GROUP_DEPTH} levels). Policy: ${policy}_Edit.`,
        requestBody: body,
        responses: { '201': { description: 'The new group.', content: json(ref(http.schema)) }, ...errors(400, 401, 403, 500) },
      },
      ops.create,
    ),
    update: route(
      `PUT ${path}/{id}`,
      {
        ...common,
        summary: `Rename and/or move a ${noun} group.`,
        description: `Without \`parent_id\` the group stays where it is; a group cannot move under itself or its sub-groups. Policy: ${policy}_Edit.`,
        parameters: params('IdPath'),
        requestBody: body,
        responses: { '204': { description: `Updated (the reference's status); GET ${path}?id= reads it.` }, ...errors(400, 401, 403, 404, 500) },
      },
      ops.update,
    ),
    remove: route(
      `DELETE ${path}/{id}`,
      {
        ...common,
        summary: `Delete a ${noun} group (never its ${plural}).`,
        description: `Its ${plural} and sub-groups move up to its parent group (or out of any group). Policy: ${policy}_Delete.`,
        parameters: params('IdPath'),
        responses: noContent('Deleted.', 401, 403, 404, 500),
      },
      ops.remove,
    ),
  };
}

/** One area's four group operations, named by `http` in rest.yaml (its routes) and, by its noun, in the API. */
export function groupOps(http: GroupHttp): ReturnType<typeof withRoutes> {
  const Noun = `${http.noun.charAt(0).toUpperCase()}${http.noun.slice(1)}`;
  const roots = { list: `${http.noun}Groups`, create: `create${Noun}Group`, update: `update${Noun}Group`, remove: `delete${Noun}Group` };
  // Every group answered (nested children too, and a new one) carries GROUP_EXTRA and a `children` list.
  const withExtra = (g: RestGroup): RestGroup => ({
    ...g,
    ...GROUP_EXTRA,
    children: Array.isArray(g.children) ? g.children.map(withExtra) : [],
  });
  const toRest = (g: GqlRecord) => withExtra(toRestGroup(g));
  const listId = `list${Noun}Groups`;
  const list: RestOperation = {
    operationId: listId,
    document: groupListDocument(listId, roots.list),
    variables: () => ({ tree: false }),
    respond(data, { query }) {
      const flat = recordsAt(data, roots.list) as unknown as GroupData[];
      let groups = query.tree === true ? nest(flat) : flat.map((g) => ({ ...g, children: [] }));
      if (typeof query.id === 'string') groups = groups.filter((g) => g.id === query.id);
      // take/page over the list (the top-level groups in tree form). The whole list is at hand, so
      // every page with a take carries Link and the exact X-Total-Count, like the other lists.
      if (typeof query.take !== 'number') return { body: groups.map(toRest) };
      if (query.take === 0) return { body: [] };
      const take = query.take;
      const page = typeof query.page === 'number' ? query.page : 0;
      const start = page * take;
      return {
        body: groups.slice(start, start + take).map(toRest),
        page: { names: { take: 'take', page: 'page' }, take, page, more: start + take < groups.length, total: groups.length },
      };
    },
    accepts: { query: ['tree', 'id', 'take', 'page'] },
  };
  return withRoutes(
    {
      list,
      create: createOp({ root: roots.create, record: 'group', recordFields: GROUP_SELECTION, body: { fields: GROUP_FIELDS, finish: requireName }, toRest }),
      // PUT answers 204 like the reference.
      update: updateOp({
        root: roots.update,
        record: 'group',
        recordFields: GROUP_SELECTION,
        body: { fields: GROUP_FIELDS, finish: requireName },
        status: 204,
        toRest,
      }),
      remove: deleteOp({ root: roots.remove }),
    },
    http,
  );
}
