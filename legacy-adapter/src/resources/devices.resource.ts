/** /devices: list (take, page: 0-based, as on current REST), one, create, update (JSON or XML bodies), delete. */
import { legacyPageWindow } from './paging.js';
import { notFoundById, resource } from './resource.js';
import { toLegacyDevice, type DeviceData } from './device.record.js';
import { deviceInput, payloadOf } from './device.input.js';

export const listDevices = resource('GET /devices', 'listDevices', { root: 'devices', item: 'device' }, async ({ query, call }) =>
  ((await call(legacyPageWindow(query))).device ?? []).map(toLegacyDevice),
);

export const getDevice = resource('GET /devices/:id', 'getDevice', { root: 'device' }, async ({ params, call }) => {
  const [device] = (await call({ id: params.id })).device ?? [];
  if (!device) throw notFoundById('device', params.id);
  return toLegacyDevice(device);
});

export const createDevice = resource(
  'POST /devices',
  'createDevice',
  { root: 'device' },
  async ({ body, call }) => toLegacyDevice(payloadOf(await call({ input: deviceInput(body, { create: true }) }), 'createDevice').device as DeviceData),
  { status: 201 },
);

/** Changes the fields given (PUT, or POST for clients that only POST). */
const updateDevice = (method: 'PUT' | 'POST') =>
  resource(`${method} /devices/:id`, 'updateDevice', { root: 'device' }, async ({ params, body, call }) =>
    toLegacyDevice(payloadOf(await call({ id: params.id, input: deviceInput(body, { create: false }) }), 'updateDevice').device as DeviceData),
  );
export const putDevice = updateDevice('PUT');
export const postDevice = updateDevice('POST');

export const deleteDevice = resource('DELETE /devices/:id', 'deleteDevice', { root: 'device' }, async ({ params, call }) => ({
  id: String(payloadOf(await call({ id: params.id }), 'deleteDevice').deviceId),
  deleted: true,
}));
