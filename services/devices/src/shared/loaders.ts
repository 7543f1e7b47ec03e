/** Per-request DataLoader: one read for every device a response references (devices and alerts use it). */
import DataLoader from 'dataloader';
import { once, type SubgraphContext } from '@pylon/kit';
import type { Device } from './device.repository.js';
import type { DevicesRuntime } from '../runtime.js';

export function deviceLoader(rt: DevicesRuntime, ctx: SubgraphContext) {
  return once(
    ctx,
    'devices.byId',
    () =>
      new DataLoader<string, Device | null>(async (ids) => {
        const found = await rt.repo.findByIds(ctx.principal.accountId, ids);
        const byId = new Map(found.map((d) => [d.id, d]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}
