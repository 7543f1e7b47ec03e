import DataLoader from 'dataloader';
import { isoSeconds, once, requirePolicy, type SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { isOnline } from '../domain/device.js';
import type { Device, DeviceRepository } from '../device.repository.js';
import { listDevices, type DeviceQuery } from '../use-cases/list-devices.js';
import { listDeviceGroups } from '../use-cases/device-groups.js';

export interface DevicesResolverDeps {
  repo: DeviceRepository;
  onlineWindowSeconds: number;
  now?: () => number;
}

/** Per-request loader for Device entities referenced by other subgraphs. */
function deviceLoader(deps: DevicesResolverDeps, ctx: SubgraphContext) {
  return once(ctx, 'devices.byId', () =>
    new DataLoader<string, Device | null>(async (ids) => {
      const found = await deps.repo.findDevices(ctx.principal.accountId, { id: { $in: [...ids] } }, {});
      const byId = new Map(found.map((d) => [d.id, d]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  );
}

export function devicesResolvers(deps: DevicesResolverDeps): GraphQLResolverMap<SubgraphContext> {
  const now = deps.now ?? Date.now;
  return {
    Query: {
      device: async (_: unknown, args: DeviceQuery & { includeSnap?: boolean }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Devices_View');
        const devices = await listDevices(deps, ctx.principal, args);
        return devices.map((d) => ({ ...d, includeSnap: args.includeSnap === true }));
      },
      deviceGroups: async (_: unknown, args: { tree?: boolean }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Devices_View');
        return listDeviceGroups(deps.repo, ctx.principal, args.tree === true);
      },
      displayCommands: async (_: unknown, __: unknown, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Devices_View');
        return deps.repo.listCommands(ctx.principal.accountId);
      },
    },
    Device: {
      __resolveReference: async (ref: { id: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Devices_View');
        return deviceLoader(deps, ctx).load(ref.id);
      },
      isOnline: (d: Device) => isOnline(d.pingData, now(), deps.onlineWindowSeconds),
      tags: (d: Device) => d.tags ?? [],
      pingData: (d: Device) => (d.pingData ? { ...d.pingData, timestamp: isoSeconds(d.pingData.timestamp) } : null),
      // Screenshots arrive through the player API (devices issue); until one exists there is none to show.
      snap: () => null,
      createdOn: (d: Device) => isoSeconds(d.createdAt),
      updatedOn: (d: Device) => isoSeconds(d.updatedAt),
    },
  };
}
