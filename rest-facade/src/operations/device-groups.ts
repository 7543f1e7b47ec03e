/** GET/POST /devices/groups and PUT/DELETE /devices/groups/{id} onto deviceGroups and the group mutations. */
import { snakeKeys } from '../case.js';
import { recordAt, recordsAt, type GqlRecord } from './shape.js';
import { payloadAt } from './mutation-payload.js';
import type { RestOperation } from './types.js';

const groupInput = (body: unknown) => {
  const b = (body ?? {}) as Record<string, unknown>;
  return { name: b.name, ...('parent_id' in b ? { parentId: b.parent_id } : {}) };
};
const toRestGroup = (g: GqlRecord) => snakeKeys(g) as Record<string, unknown>;

/**
 * Nests a flat, depth-first group list (parents before children, each with its level) into trees
 * of any depth. Built here rather than by a nested query, whose depth the GraphQL limits would cap.
 */
function nest(flat: GqlRecord[]): GqlRecord[] {
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

export const listDeviceGroups: RestOperation = {
  variables: () => ({ tree: false }),
  respond(data, { query }) {
    const flat = recordsAt(data, 'deviceGroups');
    let groups = query.tree === true ? nest(flat) : flat.map((g) => ({ ...g, children: [] }));
    if (typeof query.id === 'string') groups = groups.filter((g) => g.id === query.id);
    // take/page over the list (the top-level groups in tree form).
    const take = typeof query.take === 'number' ? query.take : groups.length;
    const page = typeof query.page === 'number' ? query.page : 0;
    return { body: groups.slice(page * take, page * take + take).map(toRestGroup) };
  },
};

export const createDeviceGroup: RestOperation = {
  variables: ({ body }) => ({ input: groupInput(body) }),
  respond: (data) => ({ status: 201, body: toRestGroup(recordAt(payloadAt(data, 'createDeviceGroup'), 'group')) }),
};

export const updateDeviceGroup: RestOperation = {
  variables: ({ params, body }) => ({ id: params.id, input: groupInput(body) }),
  respond: (data) => ({ body: toRestGroup(recordAt(payloadAt(data, 'updateDeviceGroup'), 'group')) }),
};

export const deleteDeviceGroup: RestOperation = {
  variables: ({ params }) => ({ id: params.id }),
  respond: (data) => {
    payloadAt(data, 'deleteDeviceGroup');
    return { status: 204, body: null };
  },
};
