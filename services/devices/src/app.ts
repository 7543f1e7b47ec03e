import { JsonScalar, mergeResolvers, type InternalTokens, type Subgraph } from '@pylon/kit';
import { createSubgraph } from '@pylon/kit/serving';
import type { DeviceRepository } from './shared/device.repository.js';
import { alertResolvers } from './features/alerts/resolvers.js';
import { registerBulkJobs } from './features/bulk/bulk-job.js';
import { bulkResolvers } from './features/bulk/resolvers.js';
import { commandResolvers } from './features/commands/resolvers.js';
import { deviceGroupResolvers } from './features/device-groups/resolvers.js';
import { deviceResolvers } from './features/devices/resolvers.js';
import { pairingResolvers } from './features/pairing/resolvers.js';
import { playerResolvers } from './features/player/resolvers.js';
import { createDevicesRuntime, type DevicesRuntime, type DevicesRuntimeDeps, type DevicesSettings } from './runtime.js';

export interface DevicesDeps extends Omit<DevicesRuntimeDeps, 'settings'> {
  tokens: InternalTokens;
  onlineWindowSeconds: number;
  /** Everything else tunable (command TTL, sweep period, snap cap, long-poll cap). */
  settings?: Partial<Omit<DevicesSettings, 'onlineWindowSeconds'>>;
}

export type DevicesSubgraph = Subgraph & { repo: DeviceRepository; runtime: DevicesRuntime };

/** The devices subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. The player API shares its runtime. */
export function createDevicesSubgraph(deps: DevicesDeps): DevicesSubgraph {
  const runtime = createDevicesRuntime({ ...deps, settings: { ...deps.settings, onlineWindowSeconds: deps.onlineWindowSeconds } });
  if (deps.jobs) registerBulkJobs(deps.jobs, runtime);
  const subgraph = createSubgraph({ name: 'devices', tokens: deps.tokens, resolvers: devicesResolvers(runtime) });
  return Object.assign(subgraph, { repo: runtime.repo, runtime });
}

function devicesResolvers(rt: DevicesRuntime) {
  return mergeResolvers(
    deviceResolvers(rt),
    deviceGroupResolvers(rt),
    commandResolvers(rt),
    pairingResolvers(rt),
    playerResolvers(rt),
    alertResolvers(rt),
    bulkResolvers(rt),
    {
      JSON: JsonScalar,
    },
  );
}
