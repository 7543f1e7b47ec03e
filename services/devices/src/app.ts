import { JsonScalar, type InternalTokens } from '@pylon/kit';
import { createRuntimeSubgraph, type RuntimeSubgraph } from '@pylon/kit/serving';
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

export type DevicesSubgraph = RuntimeSubgraph<DevicesRuntime>;

/** The devices subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. The player API shares its runtime. */
export function createDevicesSubgraph(deps: DevicesDeps): DevicesSubgraph {
  const runtime = createDevicesRuntime({ ...deps, settings: { ...deps.settings, onlineWindowSeconds: deps.onlineWindowSeconds } });
  if (deps.jobs) registerBulkJobs(deps.jobs, runtime);
  return createRuntimeSubgraph('devices', deps.tokens, runtime, [
    deviceResolvers,
    deviceGroupResolvers,
    commandResolvers,
    pairingResolvers,
    playerResolvers,
    alertResolvers,
    bulkResolvers,
    () => ({ JSON: JsonScalar }),
  ]);
}
