/** GET /devices and GET /devices/{id} onto Query.device. */
import type { RestDeviceFragment, RestPingDataFragment } from '@pylon/kit/generated/rest-operations.generated';
import { byIdGetOp, listOp } from './declare.js';
import { isRecord } from './shape.js';
import type { RestInput, RestSchema } from './types.js';
import { answers, arrayOf, byId, md, type OpenApiObject, params, route } from './route.js';
import { gql } from './gql.js';

/** A device as the persisted documents select it (the RestDevice fragment; lists add `snap`). */
export type DeviceData = RestDeviceFragment & { snap?: string | null };

/** An int64 figure of the reference (bytes, rates, milliseconds, percentages) from a GraphQL Float. */
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * GraphQL PingData -> the reference's PingData, every member present. Figures the player did not
 * report are null, except where the reference types them non-nullable (cpu_usage, memory_usage,
 * disk_usage, bytes_received, transfer_rate): there 0, what the reference's own service answers,
 * since a typed client (a C# `long`) cannot hold null. `meta` keeps the player's own keys.
 */
export function toRestPingData(p: RestPingDataFragment): RestSchema<'PingData'> {
  const body = {
    type: str(p.type),
    snap: null,
    player_version: str(p.playerVersion),
    os_version: str(p.osVersion),
    cpu_usage: num(p.cpuUsage) ?? 0,
    memory_usage: num(p.memoryUsage) ?? 0,
    mac_address: str(p.macAddress),
    disk_usage: num(p.diskUsage) ?? 0,
    timestamp: str(p.timestamp),
    bytes_received: int(p.bytesReceived) ?? 0,
    transfer_rate: int(p.transferRate) ?? 0,
    ip_address: str(p.ipAddress),
    latitude: num(p.latitude),
    longitude: num(p.longitude),
    current_schedule: str(p.currentSchedule),
    uptime: int(p.uptime),
    external_ip_address: str(p.externalIpAddress),
    download_pct_complete: int(p.downloadPctComplete),
    meta: isRecord(p.meta) ? p.meta : null,
    cpu_temperature: num(p.cpuTemperature),
  };
  // timestamp: null only for a ping that reported none (the reference's type is a plain string).
  return body as RestSchema<'PingData'>;
}

/**
 * Whether the device's content is in sync: by the download progress its last ping reported (100 =
 * everything downloaded); a player that reports no progress is taken as in sync while it is online
 * (it fetches its content on every ping).
 */
function inSync(d: DeviceData, ping: RestPingDataFragment | null): boolean {
  if (!ping) return false;
  const pct = int(ping.downloadPctComplete);
  return pct !== null ? pct >= 100 : d.isOnline === true;
}

/**
 * GraphQL Device -> REST Device in the reference's shape: snake_case, `tags` a comma-separated
 * string, `entered_service` the registration time; nested device_type / location / ping_data are
 * null when unknown (the reference conformance check reads its object members as nullable).
 * Reference members are derived where Pylon has a source (see the Device schema in rest.yaml):
 * `last_update` the last ping, `in_sync` the reported download progress, `mac_address` and
 * `serial_number` what the player reports, `deactivated` false (Pylon deletes, never deactivates);
 * the rest, which Pylon has no concept for, are null.
 */
export function toRestDevice(d: DeviceData, input?: RestInput): RestSchema<'Device'> {
  const ping = isRecord(d.pingData) ? d.pingData : null;
  const meta = ping && isRecord(ping.meta) ? ping.meta : {};
  const type = isRecord(d.deviceType) ? d.deviceType : null;
  const at = isRecord(d.location) ? d.location : null;
  // One literal, member by member: lists map 50-1,000 of these per answer, and an object built up
  // key by key (computed names, then more assigned) turns into a dictionary in V8, which costs
  // twice as much to build and to serialize. A member the selection lacks is undefined, so it is
  // left out of the JSON as before.
  const body = {
    id: d.id,
    name: d.name,
    is_online: d.isOnline,
    tags: Array.isArray(d.tags) ? d.tags.join(',') : d.tags,
    group_id: d.groupId,
    group_name: d.groupName,
    org_id: d.orgId,
    timezone: d.timezone,
    notes: d.notes,
    registration_key: d.registrationKey,
    created_on: d.createdOn,
    updated_on: d.updatedOn,
    entered_service: d.createdOn,
    device_type: 'deviceType' in d ? (type ? { id: type.id, name: type.name, manufacturer: type.manufacturer, device_caps: null } : null) : undefined,
    location:
      'location' in d
        ? at
          ? {
              city: at.city,
              state: at.state,
              country: at.country,
              latitude: at.latitude,
              longitude: at.longitude,
              county: null,
              postal_code: null,
              address: null,
            }
          : null
        : undefined,
    ping_data: 'pingData' in d ? (ping ? toRestPingData(ping) : null) : undefined,
    last_update: ping ? str(ping.timestamp) : null,
    in_sync: inSync(d, ping),
    mac_address: ping ? str(ping.macAddress) : null,
    serial_number: str(meta.serial_number) ?? str(meta.serialNumber),
    deactivated: false,
    last_service: null,
    language_code: null,
    encrypted_registration_key: null,
    beacon: null,
    service_level: null,
    snap: input?.query.include_snap === true ? (d.snap ?? null) : undefined,
  };
  return body as RestSchema<'Device'>;
}

/** The reference client's parameter names (PascalCase), accepted beside the spec's snake_case ones. */
const REFERENCE_NAMES = {
  Id: 'id',
  Take: 'take',
  Page: 'page',
  DeviceTypeId: 'device_type_id',
  GroupId: 'group_id',
  GroupName: 'group_name',
  IncludeSnap: 'include_snap',
  OrgId: 'org_id',
  IsOnline: 'is_online',
};

const TEXT = { type: 'string', minLength: 1, maxLength: 200 } as const;
/** A repeated parameter (`?GroupId=a&GroupId=b`). */
const TEXT_LIST = { type: 'array', maxItems: 100, items: TEXT } as const;

/** The query parameter of a reference name, described as the alias it is (`x-pylon-alias`: the docs page leaves it out). */
const alias = (name: keyof typeof REFERENCE_NAMES, schema: OpenApiObject): OpenApiObject => ({
  name,
  in: 'query',
  description: `Reference name of \`${REFERENCE_NAMES[name]}\`.`,
  'x-pylon-alias': true,
  ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
  schema,
});

export const listDevices = route(
  'GET /devices',
  {
    tags: ['Devices'],
    summary: "Devices of the caller's account.",
    description: md('Every filter given must match (list filters match any of their values). Policy: Devices_View.'),
    parameters: [
      ...params('IdQuery', 'Take', 'Page', 'DeviceTypeId', 'GroupId', 'GroupName', 'IncludeSnap', 'OrgId', 'IsOnline'),
      // The reference API's names for the same parameters, accepted so generated clients work unchanged.
      // x-pylon-alias: the docs page (/docs) leaves them out; the API accepts them.
      alias('Id', TEXT),
      alias('Take', { type: 'integer', minimum: 0, maximum: 1000 }),
      alias('Page', { type: 'integer', minimum: 0, maximum: 10000000 }),
      alias('DeviceTypeId', TEXT),
      alias('GroupId', TEXT_LIST),
      alias('GroupName', TEXT_LIST),
      alias('IncludeSnap', { type: 'boolean' }),
      alias('OrgId', TEXT),
      alias('IsOnline', { type: 'boolean' }),
    ],
    responses: answers('One page of devices (possibly empty).', arrayOf('Device'), 400, 401, 403, 500, 503),
  },
  listOp('listDevices', {
    document: gql`
      # GET /devices. Variables come from rest-facade/src/operations/devices.ts (take/page -> limit/offset).
      # A null $isOnline leaves the where clause empty, so is_online is optional.
      query listDevices(
        $id: [String!]
        $groupId: [String!]
        $groupName: [String!]
        $deviceTypeId: [String!]
        $includeSnap: Boolean
        $orgId: String
        $isOnline: Boolean
        $limit: Int
        $offset: Int
      ) {
        device(
          id: $id
          groupId: $groupId
          groupName: $groupName
          deviceTypeId: $deviceTypeId
          includeSnap: $includeSnap
          orgId: $orgId
          where: { isOnline: { eq: $isOnline } }
          order: [{ name: ASC }, { id: ASC }]
          limit: $limit
          offset: $offset
        ) {
          ...RestDevice
          snap
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, counted by the store.
        total: deviceCount(
          id: $id
          groupId: $groupId
          groupName: $groupName
          deviceTypeId: $deviceTypeId
          orgId: $orgId
          where: { isOnline: { eq: $isOnline } }
        )
      }
    `,
    root: 'device',
    count: 'total',
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
  }),
);

export const getDevice = route(
  'GET /devices/{id}',
  {
    tags: ['Devices'],
    summary: 'One device.',
    description: "404 when no device of the caller's account has this id (devices of other accounts are not revealed). Policy Devices_View.",
    ...byId('The device.', 'Device', 400, 401, 403, 404, 500, 503),
  },
  byIdGetOp('getDevice', { from: 'list', root: 'device', fragment: 'RestDevice', what: 'device', toRest: (d) => toRestDevice(d) }),
);
