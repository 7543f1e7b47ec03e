/** Device listings (GraphQL devices; REST and legacy translate onto it). */
import type { Principal } from '@pylon/kit';
import { onlineCutoff } from '../../domain/device.js';
import type { Device, DeviceQuery, DeviceRepository } from '../../shared/device.repository.js';

export type { DeviceQuery };

export interface ListDevicesDeps {
  repo: DeviceRepository;
  onlineWindowSeconds: number;
  now?: () => number;
}

/** Lists the caller's devices: argument filters AND where, sorted (default name), offset, limited. */
export function listDevices(deps: ListDevicesDeps, principal: Principal, q: DeviceQuery): Promise<Device[]> {
  const now = deps.now ?? Date.now;
  return deps.repo.list(principal.accountId, q, () => onlineCutoff(now(), deps.onlineWindowSeconds));
}

/** How many devices listDevices would return with the same filters (no limit, no offset): exact, the caller's account only. */
export function countDevices(deps: ListDevicesDeps, principal: Principal, q: DeviceQuery): Promise<number> {
  const now = deps.now ?? Date.now;
  return deps.repo.count(principal.accountId, q, () => onlineCutoff(now(), deps.onlineWindowSeconds));
}
