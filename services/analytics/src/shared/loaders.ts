/** Per-request DataLoaders: one directory call for every device name a response shows. */
import DataLoader from 'dataloader';
import { once, type SubgraphContext } from '@pylon/kit';
import type { ReportDirectory } from '../ports/report-directory.js';

/**
 * The caller's current device names by id (null for a device deleted since, or one the caller may
 * not see): the records keep `device { ... }` for the entity and `deviceName` for a chart's label.
 */
export function deviceNameLoader(directory: ReportDirectory, ctx: SubgraphContext) {
  return once(
    ctx,
    'analytics.deviceNames',
    () =>
      new DataLoader<string, string | null>(async (ids) => {
        const names = await directory.devices(ctx.principal, ids);
        return ids.map((id) => names.get(id) ?? null);
      }),
  );
}

/** Which of `ids` are the caller's devices (the devices subgraph's answer). */
export type OwnedDevices = (ids: readonly string[]) => Promise<ReadonlySet<string>>;

/**
 * Which ids of a deviceId filter are the caller's devices (the directory names them), through the
 * same per-request loader as deviceName: one directory call answers both. A failed lookup fails
 * the query rather than leave listed devices out.
 */
export function ownedDevices(directory: ReportDirectory, ctx: SubgraphContext): OwnedDevices {
  return async (ids) => {
    const names = await deviceNameLoader(directory, ctx).loadMany(ids);
    const failed = names.find((n) => n instanceof Error);
    if (failed) throw failed;
    return new Set(ids.filter((_, i) => typeof names[i] === 'string'));
  };
}
