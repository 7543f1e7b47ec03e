/** GET /devices and GET /devices/{id} onto Query.device. */
import { snakeKeys } from '@pylon/kit';
import { getOp, listOp } from './declare.js';
import type { GqlRecord } from './shape.js';
import type { RestInput } from './types.js';

/**
 * GraphQL Device -> REST Device in the reference's shape: snake_case, `tags` a comma-separated
 * string, `entered_service` the registration time; nested device_type / location / ping_data are
 * null when unknown (the reference conformance check reads its object members as nullable).
 */
export function toRestDevice(d: GqlRecord, input?: RestInput): Record<string, unknown> {
  const body = snakeKeys(d, undefined, SNAP) as Record<string, unknown>;
  if (Array.isArray(body.tags)) body.tags = body.tags.join(',');
  if ('created_on' in body) body.entered_service = body.created_on;
  if (input?.query.include_snap === true) body.snap = d.snap ?? null;
  return body;
}
const SNAP = ['snap'] as const;

/** The reference client's parameter names (PascalCase), accepted beside the spec's snake_case ones. */
const REFERENCE_NAMES = { Id: 'id', Take: 'take', Page: 'page', DeviceTypeId: 'device_type_id', GroupId: 'group_id', GroupName: 'group_name', IncludeSnap: 'include_snap', OrgId: 'org_id', IsOnline: 'is_online' };

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
  aliases: REFERENCE_NAMES,
  toRest: toRestDevice,
});

export const getDevice = getOp({ root: 'device', what: 'device', toRest: (d) => toRestDevice(d) });
