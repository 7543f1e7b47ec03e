/** GET /devices and GET /devices/{id} onto Query.device. */
import { badInput, notFound } from '@pylon/kit';
import { snakeKeys } from '../case.js';
import { GRAPHQL_INT_MAX, one, recordsAt, type GqlRecord } from './shape.js';
import type { RestOperation } from './types.js';

/** GraphQL Device -> REST Device (reference shape: snake_case, nested device_type/ping_data/location). */
export function toRestDevice(d: GqlRecord, opts: { withSnap?: boolean } = {}): Record<string, unknown> {
  const body = snakeKeys(d, undefined, SNAP) as Record<string, unknown>;
  if (opts.withSnap) body.snap = d.snap ?? null;
  return body;
}
const SNAP = ['snap'] as const;

const deviceFieldNames = { limit: 'take', offset: 'page', 'where.isOnline': 'is_online', isOnline: 'is_online' } as const;

export const listDevices: RestOperation = {
  variables({ query: q }) {
    const take = q.take as number | undefined;
    const page = q.page as number | undefined;
    const offset = take !== undefined && page !== undefined ? take * page : undefined;
    if (offset !== undefined && offset > GRAPHQL_INT_MAX) throw badInput('page', `page * take must be at most ${GRAPHQL_INT_MAX}`);
    return {
      id: one(q.id as string | undefined),
      groupId: q.group_id,
      groupName: q.group_name,
      deviceTypeId: one(q.device_type_id as string | undefined),
      includeSnap: q.include_snap,
      orgId: q.org_id,
      isOnline: q.is_online,
      limit: take,
      offset,
    };
  },
  respond(data, { query }) {
    const withSnap = query.include_snap === true;
    return { body: recordsAt(data, 'device').map((d) => toRestDevice(d, { withSnap })) };
  },
  fieldNames: deviceFieldNames,
};

export const getDevice: RestOperation = {
  variables: ({ params }) => ({ id: params.id }),
  respond(data, { params }) {
    const [device] = recordsAt(data, 'device');
    // Unknown and foreign ids look the same: the device query only sees the caller's account.
    if (!device) throw notFound('device', String(params.id));
    return { body: toRestDevice(device) };
  },
  fieldNames: deviceFieldNames,
};
