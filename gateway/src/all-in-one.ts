/**
 * Composition root of the all-in-one server (`npm start`): every backend, the six subgraphs
 * in-process, the gateway, the REST facade and the legacy adapter, in one process.
 * Tests and benchmarks start it through `startAllInOne` exactly as `npm start` does.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Server } from 'node:http';
import { Router } from 'express';
import type { AddressInfo } from 'node:net';
import {
  createJobsHttp,
  createLogger,
  JobFiles,
  jobFileSettingsFrom,
  createOps,
  isAppError,
  InternalTokens,
  JobRunner,
  jobSettingsFrom,
  telemetryMetrics,
  metricsAccess,
  SCHEMA_DIR,
  serveMetrics,
  type AnalyticsStore,
  type EventStream,
  type GatewayClient,
  type Logger,
  type Subgraph,
} from '@pylon/kit';
import { createBackends, createRateLimiter } from '@pylon/composition/backends';
import { createPushEventProducer } from '@pylon/composition/push-events';
import {
  createAnalyticsSubgraph,
  createReportsHttp,
  registerReportExportJob,
  replayDeadLetters,
  startIngest,
  type IngestOptions,
  type ReportDirectory,
} from '@pylon/analytics';
import { createContentSubgraph, createMediaHttp, playerContent } from '@pylon/content';
import { contentSettings } from '@pylon/content/config';
import { createDataTablesHttp, createDataTablesSubgraph, playerRows } from '@pylon/datatables';
import { cachedMediaDirectory, createDevicesSubgraph, createPlayerApi, type ManifestSource } from '@pylon/devices';
import { devicesOptions, playerFailureLimit } from '@pylon/devices/config';
import { createIdentitySubgraph } from '@pylon/identity';
import { retryPolicyFrom } from '@pylon/identity/webhooks.config';
import { startDeliveryWorker } from '@pylon/identity/webhooks/delivery.worker';
import { PushEventLog, startEventLog } from '@pylon/identity/webhooks/event-log';
import { createEventsStreamHttp } from '@pylon/identity/webhooks/events-stream.http';
import { createSchedulingSubgraph, manifestVersion, playerManifest, watchChanges, type SchedulingRuntime } from '@pylon/scheduling';
import { createLegacyApp } from '@pylon/legacy-adapter';
import { createRestFacade } from '@pylon/rest-facade';
import { docsEnabled, introspectionEnabled, limitsFrom, type AllInOneEnv } from './config.js';
import { InProcessDataSource } from './data-sources.js';
import { absoluteUrls } from './manifest-urls.js';
import { DEMO_ACCOUNT_ID, seedDemo, seedDemoAlertRules, seedDemoMedia, seedDemoSchedules } from './demo.js';
import { startSimulator, type Simulator } from './simulator.js';
import { startFleet, type Fleet } from './fleet/fleet-simulator.js';
import { createAccessLayer } from './access.js';
import { createApiDocs } from './docs/api-docs.routes.js';
import { createPlayerWeb } from './player-web/player-web.routes.js';
import { credentialsFrom } from './edge-auth.js';
import { createGateway, type Gateway } from './gateway.js';
import { createHttpApp } from './http-app.js';
import { inProcessGatewayClient } from './in-process-client.js';

export interface AllInOne {
  baseUrl: string;
  legacyUrl: string;
  /** Whether /docs and /graphiql are served (DOCS_ENABLED; off in production by default). */
  docs: boolean;
  /** The bootstrap key, when this start created one. */
  apiKey?: string;
  /** The demo owner's sign-in password, when this start set one. */
  demoPassword?: string;
  /** {auth_url}: where /connect/authorize and /.well-known/openid-configuration are. */
  oauthIssuer: string;
  gateway: Gateway;
  client: GatewayClient;
  subgraphs: Record<string, Subgraph>;
  /** The analytics store the ingest writes (tests seed analytics data through it). */
  analytics: AnalyticsStore;
  logger: Logger;
  /** The telemetry path's backends (benchmarks and loss tests measure the pipeline through them). */
  telemetry: { stream: EventStream; analytics: AnalyticsStore; consumer: TelemetryConsumer };
  /** Graceful stop: readiness off, servers drained, stores closed in reverse order. */
  close(): Promise<void>;
  servers: Server[];
}

/** The in-process ingest consumer, stopped and started again (it resumes at its group's committed offsets). */
export interface TelemetryConsumer {
  pause(): Promise<void>;
  resume(): Promise<void>;
}

const listen = (app: import('express').Express, port: number, host: string) =>
  new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });

export interface StartOptions {
  logger?: Logger;
  /** Called as start-up moves on ("opening stores", "composing", "seeding demo", "listening"). */
  progress?: (step: string) => void;
}

export async function startAllInOne(env: AllInOneEnv, opts: StartOptions = {}): Promise<AllInOne> {
  const logger = opts.logger ?? createLogger({ level: env.LOG_LEVEL, name: 'pylon' });
  const progress = opts.progress ?? (() => undefined);
  const ops = createOps('all-in-one');
  progress('opening stores');
  const backends = await createBackends(env, ['documents', 'analytics', 'cache', 'stream', 'blobs']);
  const documents = backends.documents!;
  const analytics = backends.analytics!;
  const cache = backends.cache!;
  // The telemetry consumer in-process (its own root when distributed: analytics/src/ingest.main.ts).
  const ingestOptions: IngestOptions = {
    stream: backends.stream!,
    analytics,
    logger,
    metrics: telemetryMetrics(ops.registry, {
      stream: backends.stream!,
      spool: backends.spool,
      publishers: () => [
        devices.runtime.pings,
        devices.runtime.events,
        devices.runtime.plays,
        devices.runtime.impressions,
        access.auditPublisher,
        push?.publisher,
      ],
    }),
  };
  let ingest = await startIngest(ingestOptions);
  // Benchmarks pause it to measure what the HTTP edge accepts on its own (readiness fails meanwhile).
  let ingestPaused = false;
  const consumer: TelemetryConsumer = {
    async pause() {
      if (ingestPaused) return;
      ingestPaused = true;
      await ingest.close();
    },
    async resume() {
      if (!ingestPaused) return;
      ingest = await startIngest(ingestOptions);
      ingestPaused = false;
    },
  };
  backends.checks.consumer = () => ingest.check();
  if (env.INGEST_REPLAY_DEAD_LETTERS) await replayDeadLetters({ stream: backends.stream!, analytics, logger });
  // Push events (webhooks, live stream): every subgraph produces them through one durable publisher.
  const push = createPushEventProducer(backends, logger);
  const pushEvents = push ? { pushEvents: push.events } : {};
  const internalSecret = env.SIGNAGE_INTERNAL_SECRET ?? randomBytes(32).toString('hex');
  const tokens = new InternalTokens(internalSecret);

  // Player manifests: the devices service authenticates the key, scheduling resolves (in-process here).
  const late: {
    scheduling?: SchedulingRuntime;
    content?: ReturnType<typeof createContentSubgraph>;
    datatables?: ReturnType<typeof createDataTablesSubgraph>;
  } = {};
  // Where players and feed readers fetch files: the configured public base, else this server (known once it listens).
  const files: { baseUrl?: string } = {};
  const publicBase = () => env.MEDIA_PUBLIC_BASE_URL || files.baseUrl || `http://${env.HOST}:${env.PORT}`;
  const schedulingRt = () => {
    if (!late.scheduling) throw new Error('scheduling is not started yet');
    return late.scheduling;
  };
  const manifests: ManifestSource = {
    manifest: async (d) => {
      const a = await playerManifest(schedulingRt(), d);
      return a ? { body: absoluteUrls({ ...a.manifest }, publicBase()), etag: a.etag } : null;
    },
    version: (d) => manifestVersion(schedulingRt(), d),
  };
  progress('composing');
  const identity = createIdentitySubgraph({
    documents,
    cache,
    tokens,
    principalCacheSeconds: env.PRINCIPAL_CACHE_SECONDS,
    ...pushEvents,
    // Webhook filters name devices and groups of the caller's account: the devices repository answers (in-process).
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
  // Webhook delivery in-process (its own role when distributed: identity/src/webhooks.main.ts).
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
  const devices = createDevicesSubgraph({
    documents,
    tokens,
    // In-process: identity's own repository answers, scoped to the caller's account.
    organizations: { belongsTo: async (caller, orgId) => (await identity.repo.findOrganization(caller.accountId, orgId)) !== null },
    ...devicesOptions(env),
    blobs: backends.blobs!,
    pubsub: backends.pubsub!,
    cache,
    stream: backends.stream!,
    ...(backends.spool ? { spool: backends.spool } : {}),
    manifests,
    // Menu-board rows for the web player: datatables' runtime, as the device's account.
    dataTables: {
      rows: async (device, tableId) => {
        if (!late.datatables) throw new Error('datatables is not started yet');
        return playerRows(late.datatables.runtime, device, tableId);
      },
    },
    // Play logs keep the media file's name: content's repository answers, scoped to the device's account.
    media: cachedMediaDirectory({
      names: async (accountId, ids) => {
        if (!late.content) throw new Error('content is not started yet');
        return new Map([...(await late.content.repo.media.findByIds(accountId, ids))].map(([id, m]) => [id, m.name]));
      },
    }),
    logger,
    ...pushEvents,
  });
  const content = createContentSubgraph({
    documents,
    tokens,
    blobs: backends.blobs!,
    urlSecret: internalSecret,
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
  // Heavy work (large imports, large and asked-for exports) runs as jobs, their state in the documents
  // store (kit jobs.ts); the files exports make go to the blob store, downloaded through signed links.
  const jobFiles = new JobFiles(backends.blobs!, documents, internalSecret, jobFileSettingsFrom(env), logger);
  const jobs = new JobRunner(documents, jobSettingsFrom(env), logger, jobFiles);
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
  // In-process: the other subgraphs' repositories answer, each scoped to the caller's account.
  const scheduling = createSchedulingSubgraph({
    documents,
    tokens,
    cache,
    pubsub: backends.pubsub!,
    logger,
    ...pushEvents,
    devices: {
      devices: async (caller, ids) =>
        new Map((await devices.repo.findByIds(caller.accountId, ids)).map((d) => [d.id, { id: d.id, timezone: d.timezone ?? null }])),
    },
    content: {
      existing: async (caller, kind, ids) =>
        new Set((await content.repo[kind === 'playlist' ? 'playlists' : 'templates'].findByIds(caller.accountId, ids)).keys()),
      playerContent: (caller, refs) => playerContent(content.runtime, caller.accountId, refs),
    },
    accounts: {
      timeZone: async (caller) => (await identity.repo.getAccount(caller.accountId)).timezone,
      hasOrganization: async (caller, orgId) => (await identity.repo.findOrganization(caller.accountId, orgId)) !== null,
    },
  });
  late.scheduling = scheduling.runtime;
  // Content and device changes reach scheduling through the pub/sub port (Redis with CACHE_DRIVER=redis).
  const unwatch = await watchChanges(scheduling.runtime, backends.pubsub!);
  // Device and media names (and whether ids are the caller's) for analytics records and reports, from the repositories in-process.
  const directory: ReportDirectory = {
    devices: async (caller, ids) => new Map((await devices.repo.findByIds(caller.accountId, ids)).map((d) => [d.id, d.name])),
    media: async (caller, ids) => new Map([...(await content.repo.media.findByIds(caller.accountId, ids))].map(([id, m]) => [id, m.name])),
  };
  const subgraphs: Record<string, Subgraph> = {
    identity,
    devices,
    content,
    scheduling,
    datatables,
    analytics: createAnalyticsSubgraph({ analytics, tokens, directory }),
  };

  const gateway = await createGateway({
    supergraphSdl: readFileSync(`${SCHEMA_DIR}supergraph.graphql`, 'utf8'),
    buildService: (name) => {
      const sg = subgraphs[name];
      if (!sg) throw new Error(`supergraph names an unknown subgraph '${name}'`);
      return new InProcessDataSource(sg, tokens);
    },
    introspection: introspectionEnabled(env),
    limits: limitsFrom(env),
    logger,
  });

  // Keys and bearer tokens with rate limits, the audit trail, the OAuth server (identity issue).
  const access = await createAccessLayer(env, { backends, identity, logger });
  const auth = access.auth;
  const audit = access.audit;
  const client = inProcessGatewayClient(gateway, auth);
  const rest = await createRestFacade({ client, logger, audit });
  // The player API (device-facing, registration-key auth) answers /player/... before the REST facade;
  // so do media uploads and files, which stream (not GraphQL) and authenticate like the facade.
  // Failed registration keys per address: the API-key path's mechanism, its own counters.
  const playerFailures = await createRateLimiter(env, playerFailureLimit(env));
  const mediaHttp = createMediaHttp(content.runtime, { authenticate: (req) => auth.authenticate(credentialsFrom(req)) });
  // Data-table row reads (ETag from the table generation), CSV/xlsx import and CSV export likewise.
  const dataTablesHttp = createDataTablesHttp(datatables.runtime, {
    authenticate: (req) => auth.authenticate(credentialsFrom(req)),
    jobs: {
      runner: jobs,
      dir: join(resolve(env.SIGNAGE_DATA_DIR), 'jobs'),
      thresholdBytes: env.IMPORT_JOB_THRESHOLD_BYTES,
      exportThresholdRows: env.EXPORT_JOB_THRESHOLD_ROWS,
    },
  });
  const jobsHttp = createJobsHttp(jobs, { authenticate: (req) => auth.authenticate(credentialsFrom(req)) });
  // Report files (GET /report, POST /report/export): ids checked and names read through the same directory.
  // Large or asked-for report exports run as jobs like large data-table exports (their own kind).
  registerReportExportJob(jobs, { analytics, directory, logger });
  const reportsHttp = createReportsHttp(
    { analytics, directory },
    { authenticate: (req) => auth.authenticate(credentialsFrom(req)), logger, audit, jobs: { runner: jobs, thresholdRows: env.REPORT_JOB_THRESHOLD_ROWS } },
  );
  // The live stream (GET /events/stream): push events from their readable log, written in-process.
  const eventLog = new PushEventLog(documents);
  const eventLogWriter = await startEventLog({ stream: backends.stream!, log: eventLog, logger });
  const eventsHttp = createEventsStreamHttp(eventLog, { authenticate: (req) => auth.authenticate(credentialsFrom(req)) });
  const front = Router().use(
    createPlayerApi(devices.runtime, { failures: playerFailures }),
    eventsHttp,
    mediaHttp,
    dataTablesHttp,
    jobsHttp,
    reportsHttp,
    rest,
  );
  const docs = docsEnabled(env) ? createApiDocs({ logger }) : undefined;
  const metrics = metricsAccess(env);
  const app = createHttpApp({
    gateway,
    auth,
    ops,
    logger,
    checks: backends.checks,
    rest: front,
    audit,
    oauth: access.oauth.handler,
    trustProxy: env.TRUST_PROXY,
    docs,
    player: createPlayerWeb({ logger }),
    metrics,
    publicSdl: introspectionEnabled(env),
  });
  // Media files are served by the main app: RSS enclosures point there, like manifests.
  const legacy = createLegacyApp({ client, logger, ops, audit, trustProxy: env.TRUST_PROXY, metrics, filesBaseUrl: publicBase });

  if (env.SIGNAGE_DEMO) progress('seeding demo');
  const demo = env.SIGNAGE_DEMO
    ? await seedDemo({ identity: identity.repo, devices: devices.repo, bootstrapKey: env.SIGNAGE_BOOTSTRAP_API_KEY, password: env.SIGNAGE_DEMO_PASSWORD })
    : { created: false };
  if (demo.created) await seedDemoAlertRules(devices.runtime);
  // Demo media are generated, probed and stored (several fsynced writes): done in the background so
  // the server answers at once; close() waits for it.
  const demoMedia = demo.created
    ? seedDemoMedia(content.runtime)
        .then((ids) => (ids ? seedDemoSchedules(scheduling.runtime, devices.repo, ids) : undefined))
        .catch((e: unknown) => logger.warn({ err: e }, 'demo content was not seeded'))
    : Promise.resolve();
  const simulator: Simulator | undefined =
    env.SIGNAGE_DEMO && env.SIGNAGE_SIMULATOR
      ? startSimulator(devices.runtime, { accountId: DEMO_ACCOUNT_ID, intervalSeconds: env.SIGNAGE_SIMULATOR_SECONDS, logger })
      : undefined;

  progress('listening');
  const servers = [await listen(app, env.PORT, env.HOST), await listen(legacy, env.LEGACY_PORT, env.HOST)];
  const metricsServer = await serveMetrics(ops, metrics, env.HOST);
  if (metricsServer) servers.push(metricsServer);
  const url = (s: Server) => {
    const a = s.address() as AddressInfo;
    const host = a.address === '0.0.0.0' || a.address === '::' ? 'localhost' : a.address.includes(':') ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  };
  files.baseUrl = url(servers[0]!);
  await access.start(url(servers[0]!));
  // The demo's screens also send play logs, events and impressions through the real HTTP ingestion
  // API (the fleet simulator of `npm run simulate`): history at first start, then live, once the
  // demo schedules exist, so a newcomer's dashboards are not empty.
  const fleet: Promise<Fleet | undefined> = simulator
    ? demoMedia.then(async () => {
        const screens = (await devices.repo.all(DEMO_ACCOUNT_ID)).filter((d) => d.registrationKey.startsWith('sim-'));
        const f = await startFleet({
          baseUrl: url(servers[0]!),
          screens: screens.map((d) => ({ registrationKey: d.registrationKey })),
          days: demo.created ? env.SIGNAGE_SIMULATOR_HISTORY_DAYS : 0,
          live: true,
          pings: false,
          pingSeconds: env.SIGNAGE_SIMULATOR_SECONDS,
          logger,
        });
        void f.history.then((t) => logger.info({ sent: t.sent, acknowledged: t.acknowledged }, 'demo telemetry history sent'));
        return f;
      })
    : Promise.resolve(undefined);
  // Jobs a previous run left unfinished continue from their checkpoints.
  void jobs.resumeAll().catch((err: unknown) => logger.error({ err }, 'unfinished jobs were not resumed'));
  let closed = false;
  return {
    baseUrl: url(servers[0]!),
    legacyUrl: url(servers[1]!),
    docs: docs !== undefined,
    ...(demo.apiKey ? { apiKey: demo.apiKey } : {}),
    ...(demo.password ? { demoPassword: demo.password } : {}),
    oauthIssuer: access.oauth.issuer!,
    gateway,
    client,
    subgraphs,
    analytics,
    logger,
    telemetry: { stream: backends.stream!, analytics, consumer },
    servers,
    async close() {
      if (closed) return;
      closed = true;
      ops.setDraining();
      await (await fleet)?.close();
      // Long-polling pings answer now instead of holding the servers open; so do live streams.
      devices.runtime.releaseWaiters();
      eventsHttp.closeAll();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.close(() => r());
              s.closeIdleConnections();
            }),
        ),
      );
      await jobs.close();
      await gateway.stop();
      await access.close();
      await playerFailures.close();
      await simulator?.close();
      await unwatch();
      await devices.runtime.close();
      await demoMedia;
      await webhookWorker.close();
      await eventLogWriter.close();
      await push?.publisher.close();
      await ingest.close();
      await backends.close();
    },
  };
}
