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

export const listDeviceGroups: RestOperation = {
  variables: ({ query }) => ({ tree: query.tree === true }),
  respond(data, { query }) {
    let groups = recordsAt(data, 'deviceGroups');
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
