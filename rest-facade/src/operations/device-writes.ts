/** POST /devices, PUT/PATCH/DELETE /devices/{id} onto createDevice / updateDevice / patchDevice / deleteDevice. */
import { createOp, deleteOp, getOp, patchOp, updateOp, type FieldMap } from './declare.js';
import { toRestDevice, type DeviceData } from './devices.js';
import { isRecord } from './shape.js';
import { answers, created, JSON_PATCH_BODY, jsonBody, md, noContent, params, ref, route } from './route.js';
import { gql } from './gql.js';

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

/** A JSON Patch value as GraphQL takes it, where only `/tags` differs from the REST form (tagList). */
export const tagsPatched = (path: string, value: unknown): unknown => (path === '/tags' ? tagList(value) : value);

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
export const createDevice = route(
  'POST /devices',
  {
    tags: ['Devices'],
    summary: 'Register a device.',
    description: md(
      'Registers a device and answers it with its `registration_key`, the credential its player',
      'uses on the player API (/player/{registrationKey}/...). Give `registration_key` to register',
      'the key a player generated (e.g. shown on its screen): 32 to 128 letters, digits, - or _,',
      'and hard to guess (runs, repeats and small alphabets are refused with 400); otherwise one is',
      'generated (128 random bits). The',
      "reference's `activation_code` query parameter (the code a player shows to be paired) is",
      'taken as that key. Unknown properties (including `id` and `account_id`) are refused with',
      '400. Policy: Devices_Edit.',
    ),
    parameters: [
      {
        name: 'activation_code',
        in: 'query',
        description:
          "The reference's pairing code; a Pylon player shows its registration key, so it is taken as `registration_key` (a `registration_key` in the body wins).",
        schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{32,128}$' },
      },
    ],
    requestBody: jsonBody('DeviceCreate'),
    responses: created('The registered device, with its registration_key.', ref('Device'), 400, 401, 403, 409, 500),
  },
  createOp('createDevice', {
    root: 'createDevice',
    record: 'device',
    query: { activation_code: 'registrationKey' },
    body: { fields: { ...DEVICE_FIELDS, registration_key: 'registrationKey' } },
    toRest,
  }),
);

/** PUT answers 204 like the reference; GET /devices/{id} reads the result. */
export const updateDevice = route(
  'PUT /devices/{id}',
  {
    tags: ['Devices'],
    summary: "Replace a device's writable fields.",
    description: md(
      'Replaces the writable representation: every writable field left out is reset (tags to',
      'none, the others to null; the name stays when not given); use PATCH to change some fields',
      'only. Takes the reference\'s DeviceRequest as is (`timeZone`, `tags` as "a,b"; its',
      'language_code, last_service, mac_address and beacon are accepted and not stored).',
      '`registration_key`, `id` and the other read-only fields cannot be set (unknown properties',
      'are refused with 400). Policy: Devices_Edit. Answers 204, as the reference does.',
    ),
    parameters: params('IdPath'),
    requestBody: jsonBody('DeviceReplace'),
    responses: noContent('Updated; GET /devices/{id} reads it.', 400, 401, 403, 404, 500),
  },
  updateOp('updateDevice', {
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
  }),
);

/** Paths may use the reference's names (/timeZone) and its tag string ("a,b"). */
export const patchDevice = route(
  'PATCH /devices/{id}',
  {
    tags: ['Devices'],
    summary: 'JSON Patch a device.',
    description: md(
      'A JSON Patch (RFC 6902) array; `path` names a writable property in snake_case: /name, /tags',
      '(/tags/- appends; a "a,b" string replaces the list, as in the reference), /group_id,',
      "/org_id, /device_type, /location (/location/city, ...), /timezone (or the reference's",
      '/timeZone), /notes. Read-only paths (/id, /account_id, /version, /created_on, /updated_on,',
      '/is_online, /ping_data, /registration_key, ...) and prototype paths (/__proto__/x,',
      '/constructor/prototype/x) are refused with 400 and nothing changes; a failed `test` or a path',
      'that does not resolve is 422. The patched device is validated as a whole and written only if',
      'nobody changed it meanwhile (409 VERSION_CONFLICT otherwise). Content-Type',
      'application/json-patch+json or application/json. Policy: Devices_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: JSON_PATCH_BODY,
    responses: answers('The patched device.', ref('Device'), 400, 401, 403, 404, 409, 422, 500),
  },
  patchOp('patchDevice', {
    root: 'patchDevice',
    record: 'device',
    renames: { timeZone: 'timezone' },
    value: tagsPatched,
    toRest,
  }),
);

export const deleteDevice = route(
  'DELETE /devices/{id}',
  {
    tags: ['Devices'],
    summary: 'Delete a device.',
    description: 'Its open alerts close and its screenshot is removed; commands still queued simply expire. Policy Devices_Delete.',
    parameters: params('IdPath'),
    responses: noContent('Deleted.', 401, 403, 404, 500),
  },
  deleteOp('deleteDevice', { root: 'deleteDevice' }),
);

/** POST /devices/claim: the code a /play screen shows becomes a device (or re-pairs one); 201 with it. */
export const claimDevice = route(
  'POST /devices/claim',
  {
    tags: ['Devices'],
    summary: 'Pair a screen by the code it shows.',
    description: md(
      'A browser opened at /play without a key shows a 6-character pairing code (valid 10 minutes,',
      'single use). Claiming it registers a device with this name, group and time zone (or, with',
      '`device_id`, binds the screen to that existing device, whose configuration is kept); the',
      "screen receives its registration key on its next poll. The code's case and dashes are",
      'ignored. An unknown or expired code is a 404 naming `code`; past 10 of them in 10 minutes the',
      "account gets 429. `group_id` and `device_id` must be the caller's account's. Policy: Devices_Edit.",
    ),
    requestBody: jsonBody('DeviceClaim'),
    responses: created('The paired device, with its registration_key.', ref('Device'), 400, 401, 403, 404, 429, 500),
  },
  createOp('claimDevice', {
    root: 'claimDevice',
    record: 'device',
    flat: true,
    body: { fields: { code: 'code', name: 'name', group_id: 'groupId', timezone: 'timeZone', device_id: 'deviceId' } },
    toRest,
  }),
);

/** GET /devices/claim/{code}: what the screen waiting with this code says of itself, before an operator claims it. */
export const getPairingRequest = route(
  'GET /devices/claim/{code}',
  {
    tags: ['Devices'],
    summary: 'The screen waiting with a pairing code, before claiming it.',
    description: md(
      'What the browser showing this code (a /play screen without a key) said of itself when it',
      'asked for the code: its user agent and screen size (not verified), and when the code',
      "expires. The code's case and dashes are ignored. An unknown, expired or already claimed code",
      'is a 404 and counts like a failed claim (10 per account per 10 minutes, then',
      '429), so this is no way to guess codes. Policy: Devices_Edit.',
    ),
    parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'string', maxLength: 50 } }],
    responses: answers('The waiting screen.', ref('PairingRequest'), 401, 403, 404, 429, 500),
  },
  getOp('getPairingRequest', {
    document: gql`
      # GET /devices/claim/{code}: the screen waiting with this pairing code, before claiming it.
      query getPairingRequest($code: String!) {
        pairingRequest(code: $code) {
          code
          expiresAt
          userAgent
          screenWidth
          screenHeight
        }
      }
    `,
    root: 'pairingRequest',
    what: 'pairing request',
    param: 'code',
    variable: 'code',
    // null: no screen waits with this code.
    nullable: true,
  }),
);
