/**
 * The six subgraphs in one process, wired to each other in-process: where a distributed subgraph
 * asks another over HTTP (a port's HTTP adapter), here the other's repository or runtime answers,
 * always scoped to the caller's account. Also the work the subgraphs' own roles do when distributed:
 * webhook delivery (identity/src/webhooks.main.ts) and jobs (imports, exports, report exports).
 */
import { join, resolve } from 'node:path';
import {
  devicePrincipal,
  isAppError,
  JobFiles,
  jobFileSettingsFrom,
  JobRunner,
  jobSettingsFrom,
  type AuditSink,
  type InternalTokens,
  type Logger,
  type PushEvents,
  type Subgraph,
} from '@pylon/kit';
import type { Backends } from '@pylon/composition/backends';
import { createAnalyticsSubgraph, registerReportExportJob, type ReportDirectory } from '@pylon/analytics';
import { createContentSubgraph, playerContent, playerMedia, startExpirySweep } from '@pylon/content';
import { contentSettings } from '@pylon/content/config';
import { createDataTablesSubgraph, playerRows } from '@pylon/datatables';
import { cachedMediaDirectory, createDevicesSubgraph, sendBulkDeviceCommands, startWebhookAlerts, type ManifestSource } from '@pylon/devices';
import { devicesOptions } from '@pylon/devices/config';
import { createIdentitySubgraph } from '@pylon/identity';
import { retryPolicyFrom } from '@pylon/identity/webhooks.config';
import { startDeliveryWorker } from '@pylon/identity/features/webhooks/webhook-delivery.worker';
import {
  acknowledgeOverride,
  assignScheduleDevices,
  checkSchedule,
  createSchedulingSubgraph,
  currentManifest,
  devicePower,
  manifestVersion,
  offWindows,
  playerPrincipal,
  startCapPolling,
  startPowerEdges,
  watchChanges,
  type SchedulingRuntime,
} from '@pylon/scheduling';
import type { AllInOneEnv } from '../all-in-one.config.js';
import { absoluteUrls } from './manifest-urls.js';

export interface SubgraphWiring {
  backends: Backends;
  tokens: InternalTokens;
  /** Signs media file links and job result links. */
  internalSecret: string;
  logger: Logger;
  /** The push-event producer every subgraph records into, when the stream has one. */
  pushEvents: { pushEvents?: PushEvents };
  /** Where players fetch files (manifest links are made absolute against it). */
  publicBase: () => string;
  /** The audit trail of acknowledgements by screens (emergency overrides). */
  audit?: AuditSink;
}

export type InProcessSubgraphs = Awaited<ReturnType<typeof createInProcessSubgraphs>>;

export async function createInProcessSubgraphs(env: AllInOneEnv, w: SubgraphWiring) {
  const { backends, tokens, logger, pushEvents } = w;
  const documents = backends.documents!;
  const cache = backends.cache!;
  // Devices is built before the subgraphs it asks (manifests, data-table rows, media names): they answer once started.
  const late: {
    scheduling?: SchedulingRuntime;
    content?: ReturnType<typeof createContentSubgraph>;
    datatables?: ReturnType<typeof createDataTablesSubgraph>;
  } = {};
  const started = <T>(name: string, v: T | undefined): T => {
    if (!v) throw new Error(`${name} is not started yet`);
    return v;
  };
  // Player manifests: the devices service authenticates the key, scheduling resolves.
  const manifests: ManifestSource = {
    manifest: async (d) => {
      const a = await currentManifest(started('scheduling', late.scheduling), d);
      return a ? { body: absoluteUrls({ ...a.manifest }, w.publicBase()), etag: a.etag } : null;
    },
    version: (d) => manifestVersion(started('scheduling', late.scheduling), d),
    acknowledgeOverride: (d, overrideId, body) => acknowledgeOverride(started('scheduling', late.scheduling), d, overrideId, body),
    power: async (d) => devicePower(started('scheduling', late.scheduling), playerPrincipal(d), d.id),
  };

  const identity = createIdentitySubgraph({
    documents,
    cache,
    tokens,
    principalCacheSeconds: env.PRINCIPAL_CACHE_SECONDS,
    ...pushEvents,
    // Webhook filters name devices and groups of the caller's account: the devices repository answers.
    webhookDevices: {
      existingDevices: async (accountId, ids) => new Set((await devices.repo.findByIds(accountId, ids)).map((d) => d.id)),
      groupExists: (accountId, groupId) =>
        devices.repo.groupTree.getGroup(accountId, groupId).then(
          () => true,
          (e: unknown) => {
            if (isAppError(e) && e.code === 'NOT_FOUND') return false;
            throw e;
          },
        ),
    },
  });
  // Webhook delivery (its own role when distributed: identity/src/webhooks.main.ts).
  const webhookWorker = await startDeliveryWorker({
    stream: backends.stream!,
    repo: identity.webhooks,
    logger,
    allowList: env.WEBHOOK_ALLOW_LIST,
    policy: retryPolicyFrom(env),
    pollMs: env.WEBHOOK_POLL_MS,
    endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
    ...pushEvents,
  });
  // Heavy work (large imports, large and asked-for exports, fleet-wide bulk) runs as jobs, their state in the documents
  // store (kit jobs.ts); the files exports make go to the blob store, downloaded through signed links.
  const jobFiles = new JobFiles(backends.blobs!, documents, w.internalSecret, jobFileSettingsFrom(env), logger);
  const jobs = new JobRunner(documents, jobSettingsFrom(env), logger, jobFiles);
  const devices = createDevicesSubgraph({
    documents,
    tokens,
    organizations: { belongsTo: async (caller, orgId) => (await identity.repo.findOrganization(caller.accountId, orgId)) !== null },
    ...devicesOptions(env),
    blobs: backends.blobs!,
    pubsub: backends.pubsub!,
    cache,
    stream: backends.stream!,
    ...(backends.spool ? { spool: backends.spool } : {}),
    manifests,
    // Menu-board rows for the web player: datatables' runtime, as the device's account.
    dataTables: { rows: async (device, tableId) => playerRows(started('datatables', late.datatables).runtime, device, tableId) },
    // Play logs keep the media file's name: content's repository, scoped to the device's account.
    media: cachedMediaDirectory({
      files: async (accountId, ids) =>
        new Map(
          [...(await started('content', late.content).repo.media.findByIds(accountId, ids))].map(([id, m]) => [
            id,
            { name: m.name, validFrom: m.startDate ?? null, validUntil: m.endDate ?? null },
          ]),
        ),
    }),
    logger,
    ...pushEvents,
    jobs,
    // Bulk schedule assignment: scheduling's use case, as the caller.
    schedules: {
      check: (caller, id) => checkSchedule(started('scheduling', late.scheduling), caller, id),
      assign: (caller, id, ids, mode) => assignScheduleDevices(started('scheduling', late.scheduling), caller, id, ids, mode),
    },
  });
  // A webhook endpoint disabled after persistent failure opens an alert (devices owns alerts).
  const webhookAlerts = await startWebhookAlerts({ stream: backends.stream!, alerts: devices.runtime.alerts, pushEvents: pushEvents.pushEvents, logger });
  const content = createContentSubgraph({
    documents,
    tokens,
    blobs: backends.blobs!,
    urlSecret: w.internalSecret,
    settings: contentSettings(env),
    logger,
    pubsub: backends.pubsub!,
    ...pushEvents,
    // A template module's dataTableId must name a table of the caller's account: datatables' repository answers (in-process).
    dataTables: {
      existing: async (accountId, ids) => {
        if (!late.datatables) throw new Error('datatables is not started yet');
        const repo = late.datatables.runtime.repo;
        return new Set((await Promise.all(ids.map(async (id) => ((await repo.getTable(accountId, id)) ? id : null)))).filter((id) => id !== null));
      },
    },
  });
  late.content = content;
  // content.expired / content.running_empty from the stored due entries (features/expiry).
  const stopExpirySweep = startExpirySweep(content.runtime);
  const datatables = createDataTablesSubgraph({
    documents,
    tokens,
    cache,
    logger,
    jobs,
    maxTableRows: env.DATATABLE_MAX_ROWS,
    ...pushEvents,
    pubsub: backends.pubsub!,
  });
  late.datatables = datatables;
  const scheduling = createSchedulingSubgraph({
    documents,
    tokens,
    capFeedAllowList: env.CAP_FEED_ALLOW_LIST,
    ...(w.audit ? { audit: w.audit } : {}),
    cache,
    pubsub: backends.pubsub!,
    logger,
    ...pushEvents,
    devices: {
      devices: async (caller, ids) =>
        new Map((await devices.repo.findByIds(caller.accountId, ids)).map((d) => [d.id, { id: d.id, timezone: d.timezone ?? null }])),
      // Emergency override targets: the whole fleet with tags, group and location, and the group tree.
      fleet: async (caller) => ({
        devices: (await devices.repo.all(caller.accountId)).map((d) => ({
          id: d.id,
          tags: d.tags ?? [],
          groupId: d.groupId ?? null,
          latitude: d.location?.latitude ?? null,
          longitude: d.location?.longitude ?? null,
        })),
        groups: new Map((await devices.repo.groupTree.listGroups(caller.accountId)).map((g) => [g.id, g.parentId ?? null])),
      }),
      online: async (caller, ids) => {
        const cutoff = devices.runtime.now() - devices.runtime.settings.onlineWindowSeconds * 1000;
        const found = await devices.repo.findByIds(caller.accountId, ids);
        return new Set(found.filter((d) => d.pingData?.timestamp && Date.parse(d.pingData.timestamp) >= cutoff).map((d) => d.id));
      },
      // Power schedule edges: queued like an operator's bulk command, sent by the power schedule.
      display: async (accountId, deviceIds, command) => {
        const by = { ...devicePrincipal(accountId, 'power-schedule'), userId: 'power-schedule' };
        await sendBulkDeviceCommands(devices.runtime, by, { deviceIds, commands: [{ command }] });
      },
    },
    content: {
      existing: async (caller, kind, ids) =>
        new Set((await content.repo[kind === 'playlist' ? 'playlists' : 'templates'].findByIds(caller.accountId, ids)).keys()),
      playerContent: (caller, refs) => playerContent(content.runtime, caller.accountId, refs),
      playerMedia: (caller, ids) => playerMedia(content.runtime, caller.accountId, ids),
    },
    accounts: {
      timeZone: async (caller) => (await identity.repo.getAccount(caller.accountId)).timezone,
      hasOrganization: async (caller, orgId) => (await identity.repo.findOrganization(caller.accountId, orgId)) !== null,
    },
  });
  late.scheduling = scheduling.runtime;
  // Content and device changes reach scheduling through the pub/sub port (Redis with CACHE_DRIVER=redis).
  const unwatchChanges = await watchChanges(scheduling.runtime, backends.pubsub!);
  // display_on / display_off at power schedule edges (stored, so a restart resumes them).
  const stopPowerEdges = startPowerEdges(scheduling.runtime);
  const unwatch = async () => {
    await stopPowerEdges();
    await unwatchChanges();
  };
  // CAP alert feeds start and end emergency overrides (cap-feeds/poll-cap-feed.ts).
  const stopCapPolling = startCapPolling(scheduling.runtime);
  // Device and media names (and whether ids are the caller's) for analytics records and reports.
  const directory: ReportDirectory = {
    devices: async (caller, ids) => new Map((await devices.repo.findByIds(caller.accountId, ids)).map((d) => [d.id, d.name])),
    media: async (caller, ids) => new Map([...(await content.repo.media.findByIds(caller.accountId, ids))].map(([id, m]) => [id, m.name])),
    playlists: async (caller, ids) => new Map([...(await content.repo.playlists.findByIds(caller.accountId, ids))].map(([id, p]) => [id, p.name])),
    schedules: async (caller, ids) => new Map((await scheduling.repo.findByIds(caller.accountId, ids)).map((s) => [s.id, s.name])),
    // Pages of the largest list limit (1,000), by name then id, as GraphQL `device` lists them.
    listDevices: async (caller, max) => {
      const out = new Map<string, string>();
      for (let offset = 0; out.size < max; offset += 1000) {
        const limit = Math.min(1000, max - out.size);
        const page = await devices.repo.list(caller.accountId, { limit, offset }, () => new Date().toISOString());
        for (const d of page) out.set(d.id, d.name);
        if (page.length < limit) break;
      }
      return out;
    },
    // Uptime over on-hours: the off-hours of the caller's devices by their power schedules.
    powerOff: (caller, from, to) => offWindows(scheduling.runtime, caller, from, to),
  };
  const subgraphs: Record<string, Subgraph> = {
    identity,
    devices,
    content,
    scheduling,
    datatables,
    analytics: createAnalyticsSubgraph({ analytics: backends.analytics!, tokens, directory }),
  };
  // Large or asked-for report exports run as jobs like large data-table exports (their own kind).
  registerReportExportJob(jobs, { analytics: backends.analytics!, directory, logger });
  return {
    identity,
    devices,
    content,
    datatables,
    scheduling,
    subgraphs,
    directory,
    jobs,
    webhookWorker,
    webhookAlerts,
    unwatch,
    stopCapPolling,
    stopExpirySweep,
    /** Where jobs keep files in flight (large imports). */
    jobsDir: join(resolve(env.SIGNAGE_DATA_DIR), 'jobs'),
  };
}
