/**
 * Group CRUD (devices, media, playlists, templates, schedules all have groups): one call gives the
 * four REST operations over a flat, depth-first group list query and the three group mutations.
 */
import { createOp, deleteOp, updateOp, type FieldMap } from './declare.js';
import { recordsAt, type GqlRecord } from './shape.js';
import type { RestOperation } from './types.js';
import { snakeKeys } from '@pylon/kit';


const GROUP_FIELDS: FieldMap = { name: 'name', parent_id: 'parentId' };

export const toRestGroup = (g: GqlRecord) => snakeKeys(g) as Record<string, unknown>;

/**
 * Nests a flat, depth-first group list (parents before children, each with its level) into trees
 * of any depth. Built here rather than by a nested query, whose depth the GraphQL limits would cap.
 */
export function nest(flat: GqlRecord[]): GqlRecord[] {
  const roots: GqlRecord[] = [];
  const lastAtLevel: GqlRecord[] = [];
  for (const g of flat) {
    const node: GqlRecord = { ...g, children: [] };
    const level = typeof g.level === 'number' ? g.level : 0;
    const parent = level > 0 ? lastAtLevel[level - 1] : undefined;
    if (parent) (parent.children as GqlRecord[]).push(node);
    else roots.push(node);
    lastAtLevel[level] = node;
    lastAtLevel.length = level + 1;
  }
  return roots;
}

export interface GroupRoots {
  /** Query root: the flat group list (its persisted document takes `tree: false`). */
  list: string;
  /** Mutation roots; create/update payloads hold `group`. */
  create: string;
  update: string;
  remove: string;
  /** Group -> REST body (default: snake_case keys). */
  toRest?: (g: GqlRecord) => Record<string, unknown>;
}

export function groupOps(roots: GroupRoots): { list: RestOperation; create: RestOperation; update: RestOperation; remove: RestOperation } {
  const toRest = roots.toRest ?? toRestGroup;
  const list: RestOperation = {
    variables: () => ({ tree: false }),
    respond(data, { query }) {
      const flat = recordsAt(data, roots.list);
      let groups = query.tree === true ? nest(flat) : flat.map((g) => ({ ...g, children: [] }));
      if (typeof query.id === 'string') groups = groups.filter((g) => g.id === query.id);
      // take/page over the list (the top-level groups in tree form).
      const take = typeof query.take === 'number' ? query.take : groups.length;
      const page = typeof query.page === 'number' ? query.page : 0;
      return { body: groups.slice(page * take, page * take + take).map((g) => toRest(g)) };
    },
    accepts: { query: ['tree', 'id', 'take', 'page'] },
  };
  return {
    list,
    create: createOp({ root: roots.create, record: 'group', body: { fields: GROUP_FIELDS }, toRest: (g) => toRest(g) }),
    // PUT answers 204 like the reference.
    update: updateOp({ root: roots.update, record: 'group', body: { fields: GROUP_FIELDS }, status: 204, toRest: (g) => toRest(g) }),
    remove: deleteOp({ root: roots.remove }),
  };
}
