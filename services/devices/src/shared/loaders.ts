/** Per-request DataLoader: one read for every device a response references (devices and alerts use it). */
import { byIdLoader, type SubgraphContext } from '@pylon/kit';
import type { Device } from './device.repository.js';
import type { DevicesRuntime } from '../runtime.js';

export function deviceLoader(rt: DevicesRuntime, ctx: SubgraphContext) {
  return byIdLoader<Device>(ctx, 'devices.byId', (tenant, ids) => rt.repo.findByIds(tenant, ids));
}
