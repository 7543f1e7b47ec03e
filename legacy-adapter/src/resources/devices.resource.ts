/** /devices: list (take, page: 0-based, as on current REST), one, create, update (JSON or XML bodies), delete. */
import { legacyPageWindow } from './paging.js';
import { defineResource, notFoundById } from './resource.js';
import { toLegacyDevice, type DeviceData, type LegacyDevice } from './device.record.js';
import { deviceInput, payloadOf } from './device.input.js';

export const listDevices = defineResource<LegacyDevice[]>({
  method: 'get',
  path: '/devices',
  operations: ['listDevices'],
  view: { root: 'devices', item: 'device' },
  async handle({ query, run }) {
    const data = await run('listDevices', legacyPageWindow(query));
    return (data.device ?? []).map(toLegacyDevice);
  },
});

export const getDevice = defineResource<LegacyDevice>({
  method: 'get',
  path: '/devices/:id',
  operations: ['getDevice'],
  view: { root: 'device' },
  async handle({ params, run }) {
    const data = await run('getDevice', { id: params.id });
    const [device] = data.device ?? [];
    if (!device) throw notFoundById('device', params.id);
    return toLegacyDevice(device);
  },
});

export const createDevice = defineResource<LegacyDevice>({
  method: 'post',
  path: '/devices',
  operations: ['createDevice'],
  view: { root: 'device' },
  status: 201,
  async handle({ body, run }) {
    const data = await run('createDevice', { input: deviceInput(body, { create: true }) });
    return toLegacyDevice(payloadOf(data, 'createDevice').device as DeviceData);
  },
});

/** Changes the fields given (PUT, or POST for clients that only POST). */
function updateDevice(method: 'put' | 'post') {
  return defineResource<LegacyDevice>({
    method,
    path: '/devices/:id',
    operations: ['updateDevice'],
    view: { root: 'device' },
    async handle({ params, body, run }) {
      const data = await run('updateDevice', { id: params.id, input: deviceInput(body, { create: false }) });
      return toLegacyDevice(payloadOf(data, 'updateDevice').device as DeviceData);
    },
  });
}
export const putDevice = updateDevice('put');
export const postDevice = updateDevice('post');

export const deleteDevice = defineResource<{ id: string; deleted: boolean }>({
  method: 'delete',
  path: '/devices/:id',
  operations: ['deleteDevice'],
  view: { root: 'device' },
  async handle({ params, run }) {
    const data = await run('deleteDevice', { id: params.id });
    return { id: String(payloadOf(data, 'deleteDevice').deviceId), deleted: true };
  },
});
