/** Distributed mode: the devices subgraph as its own process, serving the player API beside /graphql. */
import { JobRunner, jobSettingsFrom, type RateLimiter } from '@pylon/kit';
import { createRateLimiter } from '@pylon/composition/backends';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { closingPushEvents } from '@pylon/composition/push-events';
import { createDevicesSubgraph, type DevicesSubgraph } from './app.js';
import { devicesOptions, devicesProcessEnv, playerFailureLimit, playerTelemetryLimits, type TelemetryKind, type TelemetryLimit } from './config.js';
import { createPlayerApi } from './features/player/http/player-api.js';
import { startWebhookAlerts } from './features/alerts/webhook-alerts.js';
import { createHttpOrganizationDirectory } from './adapters/organization-directory.http.js';
import { createHttpScheduleAssigner } from './adapters/schedule-assigner.http.js';
import { createHttpManifestSource } from './adapters/manifest-source.http.js';
import { createHttpMediaDirectory } from './adapters/media-directory.http.js';
import { cachedMediaDirectory } from './adapters/media-directory.cached.js';
import { createHttpDataTableSource } from './adapters/data-table-source.http.js';

/** Failed registration keys per client address, built with the subgraph for the player API beside it. */
let playerFailures: RateLimiter | undefined;
/** Per-screen telemetry limits, likewise. */
let playerTelemetry: Record<TelemetryKind, TelemetryLimit> | undefined;

await runSubgraphProcess({
  name: 'devices',
  needs: ['documents', 'cache', 'stream', 'blobs'],
  env: devicesProcessEnv,
  build: async ({ backends, tokens, env, logger }) => {
    const push = closingPushEvents(backends, logger);
    // Fleet-wide bulk jobs (features/bulk); schedule assignment needs scheduling in-process, so it is refused here (UNAVAILABLE).
    const jobs = new JobRunner(backends.documents!, jobSettingsFrom(env), logger);
    const devices = createDevicesSubgraph({
      jobs,
      documents: backends.documents!,
      tokens,
      organizations: createHttpOrganizationDirectory({ identityUrl: env.IDENTITY_URL, tokens }),
      ...devicesOptions(env),
      blobs: backends.blobs!,
      pubsub: backends.pubsub!,
      cache: backends.cache!,
      stream: backends.stream!,
      ...(backends.spool ? { spool: backends.spool } : {}),
      manifests: createHttpManifestSource({ schedulingUrl: env.SCHEDULING_URL, tokens }),
      // Bulk jobs' schedule assignment: the scheduling process's internal routes, as the job's caller.
      schedules: createHttpScheduleAssigner({ schedulingUrl: env.SCHEDULING_URL, tokens }),
      media: cachedMediaDirectory(createHttpMediaDirectory({ contentUrl: env.CONTENT_URL, tokens })),
      // Menu-board rows for screens: the datatables process, as the device's account.
      dataTables: createHttpDataTableSource({ datatablesUrl: env.DATATABLES_URL, tokens }),
      logger,
      ...push,
    });
    // A webhook endpoint disabled after persistent failure (the webhook-worker's event) opens an alert.
    const webhookAlerts = await startWebhookAlerts({ stream: backends.stream!, alerts: devices.runtime.alerts, pushEvents: push.pushEvents, logger });
    backends.onClose(() => webhookAlerts.close());
    playerFailures = await createRateLimiter(env, playerFailureLimit(env));
    // Closed before the backends it uses (onClose runs first, in reverse order of registration).
    backends.onClose(() => playerFailures!.close());
    playerTelemetry = await playerTelemetryLimits(env, (spec) => createRateLimiter(env, spec));
    backends.onClose(() => Promise.all(Object.values(playerTelemetry!).map((l) => l.limiter.close())).then(() => undefined));
    backends.onClose(() => devices.runtime.close());
    backends.onClose(() => jobs.close());
    void jobs.resumeAll().catch((err: unknown) => logger.error({ err }, 'unfinished bulk jobs were not resumed'));
    // Long-polls answer at once on shutdown, so draining the server does not wait for them.
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => devices.runtime.releaseWaiters());
    return devices;
  },
  extend: (app, { subgraph }) => {
    app.use(createPlayerApi((subgraph as DevicesSubgraph).runtime, { failures: playerFailures!, telemetry: playerTelemetry! }));
  },
});
