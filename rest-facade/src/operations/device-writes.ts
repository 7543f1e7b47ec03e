/** POST /devices, PUT/PATCH/DELETE /devices/{id} onto createDevice / updateDevice / patchDevice / deleteDevice. */
import { createOp, deleteOp, getOp, patchOp, updateOp, type FieldMap } from './declare.js';
import { toRestDevice, type DeviceData } from './devices.js';
import { isRecord } from './shape.js';

/** Tags as the reference sends them ("a,b") or as a list; null or "" clear them. */
export function tagList(v: unknown): unknown {
  if (v === null || v === '') return [];
  if (typeof v === 'string')
    return v
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  return v;
}

/** The reference's Location has members Pylon does not store (county, postal_code, address): dropped. */
function locationInput(v: unknown): unknown {
  if (!isRecord(v)) return v;
  const { county: _county, postal_code: _postal, address: _address, ...rest } = v;
  return rest;
}

/**
 * REST body property -> GraphQL input field (nested device_type / location keep their one-word keys).
 * The reference's DeviceRequest spells the time zone `timeZone`; its language_code, last_service,
 * mac_address and beacon have no Pylon field (the player reports its MAC address in ping data), so
 * they are accepted and dropped rather than refused.
 */
const DEVICE_FIELDS = {
  name: 'name',
  tags: { to: 'tags', map: tagList },
  group_id: 'groupId',
  org_id: 'orgId',
  device_type: 'deviceType',
  location: { to: 'location', map: locationInput },
  timezone: 'timezone',
  timeZone: 'timezone',
  notes: 'notes',
  language_code: false,
  last_service: false,
  mac_address: false,
  beacon: false,
} as const satisfies FieldMap;

const toRest = (d: DeviceData) => toRestDevice(d);

/**
 * The reference's `activation_code` query parameter is the code a player shows to be paired; a
 * Pylon player shows its registration key, so the code is taken as `registration_key` (a
 * `registration_key` in the body wins).
 */
export const createDevice = createOp('createDevice', {
  root: 'createDevice',
  record: 'device',
  query: { activation_code: 'registrationKey' },
  body: { fields: { ...DEVICE_FIELDS, registration_key: 'registrationKey' } },
  toRest,
});

/** PUT answers 204 like the reference; GET /devices/{id} reads the result. */
export const updateDevice = updateOp('updateDevice', {
  root: 'updateDevice',
  record: 'device',
  // PUT replaces the writable representation: what the body leaves out is reset (the name stays when not given).
  // A null name (the reference's DeviceRequest allows it) keeps the name, like an absent one.
  body: {
    fields: { ...DEVICE_FIELDS, name: { to: 'name', map: (v) => v ?? undefined } },
    resetTo: { tags: [], groupId: null, orgId: null, deviceType: null, location: null, timezone: null, notes: null },
  },
  status: 204,
  toRest,
});

/** Paths may use the reference's names (/timeZone) and its tag string ("a,b"). */
export const patchDevice = patchOp('patchDevice', {
  root: 'patchDevice',
  record: 'device',
  renames: { timeZone: 'timezone' },
  value: (path, value) => (path === '/tags' ? tagList(value) : value),
  toRest,
});

export const deleteDevice = deleteOp('deleteDevice', { root: 'deleteDevice' });

/** POST /devices/claim: the code a /play screen shows becomes a device (or re-pairs one); 201 with it. */
export const claimDevice = createOp('claimDevice', {
  root: 'claimDevice',
  record: 'device',
  flat: true,
  body: { fields: { code: 'code', name: 'name', group_id: 'groupId', timezone: 'timeZone', device_id: 'deviceId' } },
  toRest,
});

/** GET /devices/claim/{code}: what the screen waiting with this code says of itself, before an operator claims it. */
export const getPairingRequest = getOp('getPairingRequest', {
  root: 'pairingRequest',
  what: 'pairing request',
  param: 'code',
  variable: 'code',
  // null: no screen waits with this code.
  nullable: true,
});
