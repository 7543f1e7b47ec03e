import {
  createSubgraph,
  JsonScalar,
  mergeResolvers,
  type BlobStore,
  type Cache,
  type DocumentStore,
  type EventStream,
  type InternalTokens,
  type Logger,
  type PubSub,
  type PushEvents,
  type Spool,
  type Subgraph,
} from '@pylon/kit';
import type { DeviceRepository } from './shared/device.repository.js';
import type { DataTableSource } from './ports/data-table-source.js';
import type { ManifestSource } from './ports/manifest-source.js';
import type { MediaDirectory } from './ports/media-directory.js';
import type { OrganizationDirectory } from './ports/organization-directory.js';
import { alertResolvers } from './features/alerts/resolvers.js';
import { commandResolvers } from './features/commands/resolvers.js';
import { deviceGroupResolvers } from './features/device-groups/resolvers.js';
import { deviceResolvers } from './features/devices/resolvers.js';
import { pairingResolvers } from './features/pairing/resolvers.js';
import { playerResolvers } from './features/player/resolvers.js';
import { createDevicesRuntime, type DevicesRuntime, type DevicesSettings } from './runtime.js';

export interface DevicesDeps {
  documents: DocumentStore;
  tokens: InternalTokens;
  /** Whose organizations an orgId may name (identity's, through an adapter the composition root picks). */
  organizations: OrganizationDirectory;
  onlineWindowSeconds: number;
  now?: () => number;
  /** Screenshots (player PUT /snap, includeSnap). */
  blobs?: BlobStore;
  /** Command wake-ups across replicas (Redis pub/sub when scaled). */
  pubsub?: PubSub;
  /** Sweep lease across replicas. */
  cache?: Cache;
  /** Ping logs and device events for analytics. */
  stream?: EventStream;
  /** Where telemetry waits while the stream refuses it (the composition root's data dir). */
  spool?: Spool;
  logger?: Logger;
  /** Player manifests, resolved by scheduling (in-process or over HTTP, chosen by the composition root). */
  manifests?: ManifestSource;
  /** Media file names for play logs (content's, in-process or over HTTP). */
  media?: MediaDirectory;
  /** Push events (kit push-events.ts): devices, alerts, commands. */
  pushEvents?: PushEvents;
  /** Data-table rows for the web player's menu-board modules (datatables', in-process in the all-in-one). */
  dataTables?: DataTableSource;
  /** Everything else tunable (command TTL, sweep period, snap cap, long-poll cap). */
  settings?: Partial<Omit<DevicesSettings, 'onlineWindowSeconds'>>;
}

export type DevicesSubgraph = Subgraph & { repo: DeviceRepository; runtime: DevicesRuntime };

/** The devices subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. The player API shares its runtime. */
export function createDevicesSubgraph(deps: DevicesDeps): DevicesSubgraph {
  const runtime = createDevicesRuntime({
    documents: deps.documents,
    organizations: deps.organizations,
    ...(deps.blobs ? { blobs: deps.blobs } : {}),
    ...(deps.pubsub ? { pubsub: deps.pubsub } : {}),
    ...(deps.cache ? { cache: deps.cache } : {}),
    ...(deps.stream ? { stream: deps.stream } : {}),
    ...(deps.spool ? { spool: deps.spool } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.manifests ? { manifests: deps.manifests } : {}),
    ...(deps.media ? { media: deps.media } : {}),
    ...(deps.pushEvents ? { pushEvents: deps.pushEvents } : {}),
    ...(deps.dataTables ? { dataTables: deps.dataTables } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    settings: { ...deps.settings, onlineWindowSeconds: deps.onlineWindowSeconds },
  });
  const subgraph = createSubgraph({ name: 'devices', tokens: deps.tokens, resolvers: devicesResolvers(runtime) });
  return Object.assign(subgraph, { repo: runtime.repo, runtime });
}

function devicesResolvers(rt: DevicesRuntime) {
  return mergeResolvers(deviceResolvers(rt), deviceGroupResolvers(rt), commandResolvers(rt), pairingResolvers(rt), playerResolvers(rt), alertResolvers(rt), {
    JSON: JsonScalar,
  });
}
