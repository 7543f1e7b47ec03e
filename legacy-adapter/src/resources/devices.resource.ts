/** GET /devices: one page of the account's devices (take, page: 0-based, as on current REST). */
import { z } from 'zod';
import { defineResource, parseQuery } from './resource.js';
import { toLegacyDevice, type DeviceData, type LegacyDevice } from './device.record.js';

const Query = z.object({
  take: z.coerce.number().int().min(1).max(1000).optional(),
  page: z.coerce.number().int().min(0).max(1_000_000).optional(),
});

export const listDevices = defineResource<LegacyDevice[]>({
  method: 'get',
  path: '/devices',
  operations: ['listDevices'],
  view: { root: 'devices', item: 'device' },
  async handle({ query, run }) {
    const { take, page } = parseQuery(Query, query);
    const limit = take ?? 100;
    const data = await run<{ device: DeviceData[] }>('listDevices', { limit, offset: (page ?? 0) * limit });
    return data.device.map(toLegacyDevice);
  },
});
