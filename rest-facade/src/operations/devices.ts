/** GET /devices and GET /devices/{id} onto Query.device. */
import { snakeKeys } from '@pylon/kit';
import { getOp, listOp } from './declare.js';
import type { GqlRecord } from './shape.js';
import type { RestInput } from './types.js';

/** GraphQL Device -> REST Device (reference shape: snake_case, nested device_type/ping_data/location). */
export function toRestDevice(d: GqlRecord, input?: RestInput): Record<string, unknown> {
  const { snap, ...rest } = d;
  const body = snakeKeys(rest) as Record<string, unknown>;
  return input?.query.include_snap === true ? { ...body, snap: snap ?? null } : body;
}

export const listDevices = listOp({
  root: 'device',
  params: {
    id: { to: 'id', one: true },
    group_id: 'groupId',
    group_name: 'groupName',
    device_type_id: { to: 'deviceTypeId', one: true },
    include_snap: 'includeSnap',
    org_id: 'orgId',
    is_online: 'isOnline',
  },
  toRest: toRestDevice,
});

export const getDevice = getOp({ root: 'device', what: 'device', toRest: (d) => toRestDevice(d) });
