/**
 * The all-in-one's two HTTP apps over the in-process gateway: the main one (GraphQL, the REST facade,
 * and the routes that stream rather than go through GraphQL: the player API, media uploads and files,
 * data-table rows, imports and exports, jobs, report files, the live event stream; the docs and the
 * web player) and the legacy adapter's. Distributed, each of these routes is served by its own role.
 */
import { Router, type Express } from 'express';
import { createJobsHttp, liveStreamMetrics, metricsAccess, type GatewayClient, type Logger, type MetricsAccess, type Ops } from '@pylon/kit';
import { createRateLimiter, type Backends } from '@pylon/composition/backends';
import { createReportsHttp } from '@pylon/analytics';
import { createMediaHttp } from '@pylon/content';
import { createDataTablesHttp } from '@pylon/datatables';
import { createPlayerApi } from '@pylon/devices';
import { playerFailureLimit, playerTelemetryLimits } from '@pylon/devices/config';
import { PushEventLog, startEventLog } from '@pylon/identity/features/webhooks/event-log';
import { createEventsStreamHttp } from '@pylon/identity/features/webhooks/http/events-stream.http';
import { createLegacyApp } from '@pylon/legacy-adapter';
import { createRestFacade } from '@pylon/rest-facade';
import { createMcpHttp } from '@pylon/mcp/http';
import { introspectionEnabled } from '@pylon/gateway/config';
import { createApiDocs } from '@pylon/gateway/docs/api-docs.routes';
import { credentialsFrom } from '@pylon/gateway/edge-auth';
import type { Gateway } from '@pylon/gateway/gateway';
import { createHttpApp } from '@pylon/gateway/http-app';
import { inProcessGatewayClient } from '@pylon/gateway/in-process-client';
import { createPlayerWeb } from '@pylon/gateway/player-web/player-web.routes';
import { createConsole } from '@pylon/gateway/console/console.routes';
import { docsEnabled, type AllInOneEnv } from '../all-in-one.config.js';
import { streamCredentials, type AccessLayer } from './access.js';
import type { InProcessSubgraphs } from './in-process-subgraphs.js';

export interface HttpEdge {
  /** The main app (PORT) and the legacy adapter's (LEGACY_PORT). */
  app: Express;
  legacy: Express;
  /** The facades' way into the gateway, with the caller's credentials. */
  client: GatewayClient;
  /** Whether /docs and /graphiql are served. */
  docs: boolean;
  /** Who may read /metrics (its own port when METRICS_PORT is set). */
  metrics: MetricsAccess;
  /** Ends long-held requests (long-polling pings, live streams) so the servers can drain. */
  releaseClients(): void;
  /** The player API's limiters: failed registration keys, telemetry per screen (after the servers closed). */
  closeLimits(): Promise<void>;
  /** The live stream's log writer (after the subgraphs stopped writing events). */
  closeEventLog(): Promise<void>;
}

export async function createHttpEdge(
  env: AllInOneEnv,
  deps: { gateway: Gateway; access: AccessLayer; subgraphs: InProcessSubgraphs; backends: Backends; ops: Ops; logger: Logger; publicBase: () => string },
): Promise<HttpEdge> {
  const { gateway, access, subgraphs: sg, backends, ops, logger } = deps;
  const { auth, audit } = access;
  const authenticate = (req: Parameters<typeof credentialsFrom>[0]) => auth.authenticate(credentialsFrom(req));
  const client = inProcessGatewayClient(gateway, auth);
  const rest = await createRestFacade({ client, logger, audit });
  // The player API (device-facing, registration-key auth) answers /player/... first (http-app's early
  // routers); media uploads and files, which stream (not GraphQL), answer before the REST facade.
  // Failed registration keys per address: the API-key path's mechanism, its own counters.
  const playerFailures = await createRateLimiter(env, playerFailureLimit(env));
  // Records per screen by kind (pings, play logs, events, impressions), the same port's counters.
  const playerTelemetry = await playerTelemetryLimits(env, (spec) => createRateLimiter(env, spec));
  const mediaHttp = createMediaHttp(sg.content.runtime, { authenticate });
  // Data-table row reads (ETag from the table generation), CSV/xlsx import and CSV export likewise.
  const dataTablesHttp = createDataTablesHttp(sg.datatables.runtime, {
    authenticate,
    jobs: { runner: sg.jobs, dir: sg.jobsDir, thresholdBytes: env.IMPORT_JOB_THRESHOLD_BYTES, exportThresholdRows: env.EXPORT_JOB_THRESHOLD_ROWS },
  });
  const jobsHttp = createJobsHttp(sg.jobs, { authenticate });
  // Report files (GET /report, POST /report/export): ids checked and names read through the subgraphs' directory.
  const reportsHttp = createReportsHttp(
    { analytics: backends.analytics!, directory: sg.directory },
    { authenticate, logger, audit, jobs: { runner: sg.jobs, thresholdRows: env.REPORT_JOB_THRESHOLD_ROWS } },
  );
  // The live stream (GET /events/stream): push events from their readable log, written in-process.
  const eventLog = new PushEventLog(backends.documents!);
  // Streams read the log when the writer says their account has news (pub/sub), not every 200 ms.
  const eventLogWriter = await startEventLog({ stream: backends.stream!, log: eventLog, logger, pubsub: backends.pubsub });
  // With Redis the stream limits are counted across replicas (leases), else in this process (embedded leases).
  const eventsHttp = createEventsStreamHttp(eventLog, {
    authenticate,
    ...streamCredentials(access.identify),
    appended: backends.pubsub,
    leases: backends.leases!,
    metrics: liveStreamMetrics(ops.registry),
  });
  const front = Router().use(eventsHttp, mediaHttp, dataTablesHttp, jobsHttp, reportsHttp, rest);
  const docs = docsEnabled(env) ? createApiDocs({ logger }) : undefined;
  const metrics = metricsAccess(env);
  const app = createHttpApp({
    gateway,
    auth,
    ops,
    logger,
    checks: backends.checks,
    rest: front,
    // The player API first: its paths (/player/...) are served by no other router.
    early: createPlayerApi(sg.devices.runtime, { failures: playerFailures, telemetry: playerTelemetry }),
    audit,
    oauth: access.oauth.handler,
    trustProxy: env.TRUST_PROXY,
    docs,
    player: createPlayerWeb({ logger }),
    // /mcp: tool calls come back to this app's API with the caller's own credentials.
    mcp: createMcpHttp({
      resource: () => env.OAUTH_AUDIENCE ?? access.oauth.issuer,
      issuer: () => access.oauth.issuer,
      authenticate: async (req) => (await authenticate(req)) !== null,
    }),
    console: createConsole({ logger }),
    metrics,
    publicSdl: introspectionEnabled(env),
  });
  // Media files are served by the main app: RSS enclosures point there, like manifests.
  const legacy = createLegacyApp({ client, logger, ops, audit, trustProxy: env.TRUST_PROXY, metrics, filesBaseUrl: deps.publicBase });
  return {
    app,
    legacy,
    client,
    docs: docs !== undefined,
    metrics,
    releaseClients() {
      // Long-polling pings answer now instead of holding the servers open; so do live streams.
      sg.devices.runtime.releaseWaiters();
      eventsHttp.closeAll();
    },
    closeLimits: async () => {
      await Promise.all([playerFailures, ...Object.values(playerTelemetry).map((l) => l.limiter)].map((l) => l.close()));
    },
    closeEventLog: () => eventLogWriter.close(),
  };
}
