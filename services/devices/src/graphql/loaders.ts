/** Per-request DataLoaders: one read for every device / rule a response references. */
import DataLoader from 'dataloader';
import { once, type SubgraphContext } from '@pylon/kit';
import type { AlertRule } from '../repositories/alert.repository.js';
import type { Device } from '../repositories/device.repository.js';
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

export function ruleLoader(rt: DevicesRuntime, ctx: SubgraphContext) {
  return once(
    ctx,
    'alertRules.byId',
    () =>
      new DataLoader<string, AlertRule | null>(async (ids) => {
        const found = await rt.alerts.findRulesByIds(ctx.principal.accountId, ids);
        const byId = new Map(found.map((r) => [r.id, r]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}
