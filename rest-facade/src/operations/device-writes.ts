/** POST /devices, PUT/PATCH/DELETE /devices/{id} onto createDevice / updateDevice / patchDevice / deleteDevice. */
import { recordAt } from './shape.js';
import { toRestDevice } from './devices.js';
import { camelPatch, payloadAt } from './mutation-payload.js';
import type { RestOperation } from './types.js';

type Body = Record<string, unknown>;

/** REST body property -> GraphQL input field (nested device_type / location keep their one-word keys). */
const DEVICE_INPUT: Readonly<Record<string, string>> = {
  name: 'name',
  tags: 'tags',
  group_id: 'groupId',
  org_id: 'orgId',
  device_type: 'deviceType',
  location: 'location',
  timezone: 'timezone',
  notes: 'notes',
  registration_key: 'registrationKey',
};

function deviceInput(body: unknown, opts: { replace?: boolean } = {}): Body {
  const input: Body = {};
  // PUT replaces the writable representation: what the body leaves out is reset.
  if (opts.replace) Object.assign(input, { tags: [], groupId: null, orgId: null, deviceType: null, location: null, timezone: null, notes: null });
  for (const [k, v] of Object.entries((body ?? {}) as Body)) {
    const field = DEVICE_INPUT[k];
    if (field) input[field] = v;
  }
  return input;
}

const fieldNames = { input: 'body' } as const;

export const createDevice: RestOperation = {
  variables: ({ body }) => ({ input: deviceInput(body) }),
  respond: (data) => ({ status: 201, body: toRestDevice(recordAt(payloadAt(data, 'createDevice', fieldNames), 'device')) }),
  fieldNames,
};

export const updateDevice: RestOperation = {
  variables: ({ params, body }) => ({ id: params.id, input: deviceInput(body, { replace: true }) }),
  respond: (data) => ({ body: toRestDevice(recordAt(payloadAt(data, 'updateDevice', fieldNames), 'device')) }),
  fieldNames,
};

export const patchDevice: RestOperation = {
  variables: ({ params, body }) => ({ id: params.id, operations: camelPatch(body) }),
  respond: (data) => ({ body: toRestDevice(recordAt(payloadAt(data, 'patchDevice', fieldNames), 'device')) }),
  fieldNames,
};

export const deleteDevice: RestOperation = {
  variables: ({ params }) => ({ id: params.id }),
  respond: (data) => {
    payloadAt(data, 'deleteDevice');
    return { status: 204, body: null };
  },
};
