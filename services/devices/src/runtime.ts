/**
 * What the devices subgraph and the player API share in one process: repositories over the ports,
 * the command wake-ups, the telemetry publishers, the clock and the settings, plus the periodic
 * sweep. Built once by createDevicesSubgraph; closed by the composition root.
 */
import {
  announce,
  BufferedPublisher,
  CHANNELS,
  createLogger,
  TOPICS,
  type BlobStore,
  type Cache,
  type DocumentStore,
  type JobRunner,
  type EventLogRecord,
  type ImpressionRecord,
  type PlayLogRecord,
  type EventStream,
  type Logger,
  type PingLogRecord,
  type PubSub,
  type PushEvents,
  type Spool,
} from '@pylon/kit';
import { AlertRepository } from './features/alerts/alert.repository.js';
import { DEFAULT_SETTINGS, type DevicesSettings } from './domain/settings.js';
import { CommandRepository } from './features/commands/command.repository.js';
import type { DataTableSource } from './ports/data-table-source.js';
import type { ManifestSource } from './ports/manifest-source.js';
import type { MediaDirectory } from './ports/media-directory.js';
import type { OrganizationDirectory } from './ports/organization-directory.js';
import { DeviceRepository } from './shared/device.repository.js';
import { DeviceSilenceRepository } from './features/sweep/device-silence.repository.js';
import { PairingRepository } from './features/pairing/pairing.repository.js';
import { CommandWakeups } from './features/commands/command-wakeups.js';
import { sweepOnce, type SweepReport } from './features/sweep/sweep.js';
import { BulkResultRepository } from './features/bulk/bulk-result.repository.js';
import type { ScheduleAssigner } from './ports/schedule-assigner.js';

export type { DevicesSettings };
export { DEFAULT_SETTINGS };

export interface DevicesRuntimeDeps {
  documents: DocumentStore;
  /** Checks that an orgId a caller passes is one of its account's organizations. */
  organizations: OrganizationDirectory;
  /** Screenshots; without it snaps are refused (503) and read as null. */
  blobs?: BlobStore;
  /** Command wake-ups across replicas; without it they stay in-process. */
  pubsub?: PubSub;
  /** Sweep lease across replicas (one replica sweeps per period); without it every process sweeps. */
  cache?: Cache;
  /** Ping logs and device events for analytics; without it they are not published. */
  stream?: EventStream;
  /** Where telemetry waits on disk while the stream refuses it: held records are never lost. */
  spool?: Spool;
  /** Push events (webhooks, live stream) produced where devices, alerts and commands change; without it none. */
  pushEvents?: PushEvents;
  logger?: Logger;
  /** Player manifests (scheduling resolves them); without it GET /player/{key}/manifest is a 503 and pings carry no version. */
  manifests?: ManifestSource;
  /** Media file names for play logs (content's); without it every file id is kept as unknown. */
  media?: MediaDirectory;
  /** Data-table rows for menu-board modules; without it GET /player/{key}/datatables/{id}/rows is a 503. */
  dataTables?: DataTableSource;
  now?: () => number;
  settings: Partial<DevicesSettings> & Pick<DevicesSettings, 'onlineWindowSeconds'>;
  /** The process's job runner: bulk jobs (features/bulk) register with it; without it only dry runs answer. */
  jobs?: JobRunner;
  /** Schedule assignment for bulk jobs (scheduling's); without it those jobs are refused (UNAVAILABLE). */
  schedules?: ScheduleAssigner;
}

export interface DevicesRuntime {
  repo: DeviceRepository;
  commands: CommandRepository;
  alerts: AlertRepository;
  /** Pending pairing requests of screens opened at /play without a key. */
  pairings: PairingRepository;
  organizations: OrganizationDirectory;
  /** Shared counters (pairing rate limits); without it they are per process. */
  cache?: Cache;
  wakeups: CommandWakeups;
  settings: DevicesSettings;
  now: () => number;
  logger: Logger;
  blobs?: BlobStore;
  manifests?: ManifestSource;
  media?: MediaDirectory;
  /** Push events (kit push-events.ts): emitted after each change is stored, never delivered inline. */
  pushEvents?: PushEvents;
  /** The due-time set behind device.offline (use-cases/announce-offline.ts); present with pushEvents. */
  silence?: DeviceSilenceRepository;
  dataTables?: DataTableSource;
  /** Per-device results of bulk jobs (features/bulk). */
  bulkResults: BulkResultRepository;
  jobs?: JobRunner;
  schedules?: ScheduleAssigner;
  /** Announces devices whose manifests a change alters (time zone), over the pub/sub port. */
  devicesChanged?(accountId: string, deviceIds: string[], how?: { deleted: boolean }): Promise<void>;
  pings?: BufferedPublisher<PingLogRecord>;
  events?: BufferedPublisher<EventLogRecord>;
  /** The events a player posts, when they may not wait in the spool (settings.spoolHeldRecords false); else `events`. */
  heldEvents?: BufferedPublisher<EventLogRecord>;
  plays?: BufferedPublisher<PlayLogRecord>;
  impressions?: BufferedPublisher<ImpressionRecord>;
  /** Runs the sweep now (offline alerts, device.offline, command expiry and pruning); what the timer runs. */
  sweep(): Promise<SweepReport>;
  /** Answers every waiting long-poll now (first step of shutdown). */
  releaseWaiters(): void;
  /** Stops the timer, ends long-polls, flushes telemetry, unsubscribes. */
  close(): Promise<void>;
}

export function createDevicesRuntime(deps: DevicesRuntimeDeps): DevicesRuntime {
  const settings: DevicesSettings = { ...DEFAULT_SETTINGS, ...deps.settings };
  const logger = deps.logger ?? createLogger({ level: 'silent' });
  const now = deps.now ?? Date.now;
  const publishing = { logger, ...(deps.spool ? { spool: deps.spool } : {}) };
  // Records a player request is acknowledged for: without the spool they are acknowledged only once the stream holds them.
  const held = settings.spoolHeldRecords ? publishing : { logger };
  const rt: DevicesRuntime = {
    repo: new DeviceRepository(deps.documents),
    commands: new CommandRepository(deps.documents),
    alerts: new AlertRepository(deps.documents),
    pairings: new PairingRepository(deps.documents),
    bulkResults: new BulkResultRepository(deps.documents),
    ...(deps.jobs ? { jobs: deps.jobs } : {}),
    ...(deps.schedules ? { schedules: deps.schedules } : {}),
    ...(deps.cache ? { cache: deps.cache } : {}),
    organizations: deps.organizations,
    wakeups: new CommandWakeups(deps.pubsub, logger),
    settings,
    now,
    logger,
    ...(deps.blobs ? { blobs: deps.blobs } : {}),
    ...(deps.manifests ? { manifests: deps.manifests } : {}),
    ...(deps.media ? { media: deps.media } : {}),
    ...(deps.pushEvents ? { pushEvents: deps.pushEvents, silence: new DeviceSilenceRepository(deps.documents) } : {}),
    ...(deps.dataTables ? { dataTables: deps.dataTables } : {}),
    ...(deps.pubsub
      ? {
          devicesChanged: (accountId: string, deviceIds: string[], how?: { deleted: boolean }) =>
            announce(deps.pubsub, CHANNELS.devicesChanged, { accountId, deviceIds, ...(how?.deleted ? { deleted: true } : {}) }, (e) =>
              logger.warn({ err: e }, 'device change not announced'),
            ),
        }
      : {}),
    ...(deps.stream
      ? {
          pings: new BufferedPublisher<PingLogRecord>(deps.stream, TOPICS.pings, publishing),
          // An event's properties may hold 16 KiB: 50 per message stay below Kafka's 1 MB default.
          events: new BufferedPublisher<EventLogRecord>(deps.stream, TOPICS.events, { ...publishing, maxRecordsPerMessage: 50 }),
          ...(settings.spoolHeldRecords
            ? {}
            : { heldEvents: new BufferedPublisher<EventLogRecord>(deps.stream, TOPICS.events, { ...held, maxRecordsPerMessage: 50 }) }),
          plays: new BufferedPublisher<PlayLogRecord>(deps.stream, TOPICS.plays, held),
          impressions: new BufferedPublisher<ImpressionRecord>(deps.stream, TOPICS.impressions, held),
        }
      : {}),
    sweep: () => sweepOnce(rt),
    releaseWaiters: () => rt.wakeups.releaseAll(),
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
      await rt.wakeups.close();
      await Promise.all([rt.pings?.close(), rt.events?.close(), rt.heldEvents?.close(), rt.plays?.close(), rt.impressions?.close()]);
    },
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  if (settings.sweepIntervalSeconds > 0) {
    const periodMs = settings.sweepIntervalSeconds * 1000;
    timer = setInterval(() => {
      running = (async () => {
        // One replica per period sweeps when replicas share a cache; the others skip.
        if (deps.cache) {
          const slot = Math.floor(now() / periodMs);
          if ((await deps.cache.incr(`devices:sweep:${slot}`, settings.sweepIntervalSeconds * 2)) !== 1) return;
        }
        await rt.sweep();
      })().catch((e: unknown) => logger.error({ err: e }, 'device sweep failed; it runs again next period'));
    }, periodMs);
    timer.unref();
  }
  return rt;
}
