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
