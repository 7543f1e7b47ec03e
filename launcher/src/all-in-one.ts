/**
 * Composition root of the all-in-one server (`npm start`): every backend, the six subgraphs
 * in-process, the gateway, the REST facade and the legacy adapter, in one process.
 * Tests and benchmarks start it through `startAllInOne` exactly as `npm start` does.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import {
  cacheMetrics,
  createLogger,
  createOps,
  InternalTokens,
  SCHEMA_DIR,
  serveMetrics,
  telemetryMetrics,
  type AnalyticsStore,
  type AuditSink,
  type EventStream,
  type GatewayClient,
  type Logger,
  type Subgraph,
} from '@pylon/kit';
import { setCompiledExecution } from '@pylon/kit/serving';
import { createRateLimiter, type Backends } from '@pylon/composition/backends';
import { createPushEventProducer } from '@pylon/composition/push-events';
import { introspectionEnabled, limitsFrom } from '@pylon/gateway/config';
import { InProcessDataSource } from '@pylon/gateway/data-sources';
import { createGateway, type Gateway } from '@pylon/gateway/gateway';
import type { AllInOneEnv } from './all-in-one.config.js';
import { createAccessLayer } from './all-in-one/access.js';
import { openAllInOneBackends } from './all-in-one/backends.js';
import { startDemo } from './all-in-one/demo-start.js';
import { createHttpEdge } from './all-in-one/http-edge.js';
import { createInProcessSubgraphs } from './all-in-one/in-process-subgraphs.js';
import { closeServer, listen, urlOf } from './all-in-one/listen.js';
import { startTelemetryConsumer, type InProcessConsumer, type TelemetryConsumer } from './all-in-one/telemetry-consumer.js';

export type { TelemetryConsumer } from './all-in-one/telemetry-consumer.js';

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
  /** Telemetry records this process counted lost (each was logged by id): after `close`, what the stop cost. */
  telemetryLost(): number;
  servers: Server[];
}

export interface StartOptions {
  logger?: Logger;
  /** Called as start-up moves on ("opening stores", "composing", "seeding demo", "listening"). */
  progress?: (step: string) => void;
  /** The stores, opened by the caller with openAllInOneBackends (their migrations may still run); absent: opened here. */
  backends?: Backends;
}

/**
 * Start-up: the stores, then the subgraphs, the gateway over them, the access layer and the HTTP
 * edge, and the demo, while the analytics migrations run on chDB's threads (every analytics call
 * waits for them: createBackends' deferMigrations) and the telemetry consumer starts once they are
 * done; then the listeners and the OAuth server, and the consumer is awaited. /readyz says 503 until
 * every backend and the consumer are up. `close()` undoes it in reverse.
 */
export async function startAllInOne(env: AllInOneEnv, opts: StartOptions = {}): Promise<AllInOne> {
  const logger = opts.logger ?? createLogger({ level: env.LOG_LEVEL, name: 'pylon' });
  const progress = opts.progress ?? (() => undefined);
  const ops = createOps('all-in-one');
  setCompiledExecution(env.GRAPHQL_COMPILED);
  if (!opts.backends) progress('opening stores');
  const backends = opts.backends ?? (await openAllInOneBackends(env, logger));
  const analytics = backends.analytics!;
  // The consumer writes the analytics tables: it subscribes once the migrations are applied.
  let consumer: InProcessConsumer | undefined;
  const publishers = () => [
    sg.devices.runtime.pings,
    sg.devices.runtime.events,
    sg.devices.runtime.plays,
    sg.devices.runtime.impressions,
    access.auditPublisher,
    push?.publisher,
  ];
  const consumerStarted = backends.migrated.then(async () => {
    consumer = await startTelemetryConsumer(
      {
        stream: backends.stream!,
        analytics,
        logger,
        metrics: telemetryMetrics(ops.registry, {
          stream: backends.stream!,
          spool: backends.spool,
          publishers,
        }),
      },
      { replayDeadLetters: env.INGEST_REPLAY_DEAD_LETTERS, logger, compactEveryMs: env.ANALYTICS_COMPACT_HOURS * 3_600_000 },
    );
    return consumer;
  });
  // Awaited below, after the other steps; a failure meanwhile is not an unhandled rejection.
  consumerStarted.catch(() => undefined);
  backends.checks.consumer = () => (consumer ? consumer.check() : Promise.reject(new Error('the telemetry consumer is not started yet')));
  // Push events (webhooks, live stream): every subgraph produces them through one durable publisher.
  const push = createPushEventProducer(backends, logger);
  const internalSecret = env.SIGNAGE_INTERNAL_SECRET ?? randomBytes(32).toString('hex');
  const tokens = new InternalTokens(internalSecret);
  // Where players and feed readers fetch files: the configured public base, else this server (known once it listens).
  const listening: { baseUrl?: string } = {};
  const publicBase = () => env.MEDIA_PUBLIC_BASE_URL || listening.baseUrl || `http://${env.HOST}:${env.PORT}`;

  progress('composing');
  // Screens' override acknowledgements are audited into the access layer's trail, built after the subgraphs.
  const auditLate: { sink?: AuditSink } = {};
  const audit: AuditSink = { push: (r) => auditLate.sink?.push(r) };
  const sg = await createInProcessSubgraphs(env, {
    backends,
    tokens,
    internalSecret,
    logger,
    pushEvents: push ? { pushEvents: push.events } : {},
    publicBase,
    audit,
  });
  // The demo seed waits on store writes most of its time: it runs while the gateway and the edge are built.
  if (env.SIGNAGE_DEMO) progress('seeding demo');
  const demoStarted = startDemo(env, sg, logger);
  demoStarted.catch(() => undefined);
  // Keys and bearer tokens with rate limits, the audit trail, the OAuth server (its keys
  // load, or are generated on a first start, while the gateway is built).
  const access = await createAccessLayer(env, { backends, identity: sg.identity, logger });
  auditLate.sink = access.audit;
  // The OAuth server starts once the listeners give the issuer: /readyz waits for it (issue 35).
  backends.checks.oauth = () => access.oauth.ready();
  // New documents per key (plan-limit.plugin.ts), beside the request limits of the access layer.
  const plans = await createRateLimiter(env, { name: 'plans', points: env.RATE_LIMIT_PLAN_POINTS, durationSeconds: env.RATE_LIMIT_DURATION_SECONDS });
  const gateway = await createGateway({
    supergraphSdl: readFileSync(`${SCHEMA_DIR}supergraph.graphql`, 'utf8'),
    buildService: (name) => {
      const subgraph = sg.subgraphs[name];
      if (!subgraph) throw new Error(`supergraph names an unknown subgraph '${name}'`);
      return new InProcessDataSource(subgraph, tokens);
    },
    introspection: introspectionEnabled(env),
    limits: limitsFrom(env),
    logger,
    planLimiter: plans,
  });
  // Each per-document cache's entries and estimated bytes on /metrics.
  cacheMetrics(ops.registry, 'pylon_gateway_cache', Object.fromEntries(Object.entries(gateway.caches).map(([name, c]) => [name, c.cache])));
  const edge = await createHttpEdge(env, { gateway, access, subgraphs: sg, backends, ops, logger, publicBase });
  const demo = await demoStarted;

  progress('listening');
  const servers = [await listen(edge.app, env.PORT, env.HOST), await listen(edge.legacy, env.LEGACY_PORT, env.HOST)];
  const metricsServer = await serveMetrics(ops, edge.metrics, env.HOST);
  if (metricsServer) servers.push(metricsServer);
  const baseUrl = urlOf(servers[0]!);
  listening.baseUrl = baseUrl;
  await access.start(baseUrl);
  // The consumer subscribes once the analytics migrations are applied: on a first start they run
  // ~0.5 s on chDB's threads, while the listeners and the OAuth server start (/readyz says 503 until then).
  const telemetryConsumer = await consumerStarted.catch(async (e: unknown) => {
    await Promise.all(servers.map(closeServer));
    throw e;
  });
  demo.listening(baseUrl);
  // A second later: the readiness probes that find it ready do not wait for it; the first query need not build it.
  const warming = setTimeout(() => gateway.warm(), 1000).unref();
  // Jobs a previous run left unfinished continue from their checkpoints.
  void sg.jobs.resumeAll().catch((err: unknown) => logger.error({ err }, 'unfinished jobs were not resumed'));
  let closed = false;
  return {
    baseUrl,
    legacyUrl: urlOf(servers[1]!),
    docs: edge.docs,
    ...(demo.apiKey ? { apiKey: demo.apiKey } : {}),
    ...(demo.password ? { demoPassword: demo.password } : {}),
    oauthIssuer: access.oauth.issuer!,
    gateway,
    client: edge.client,
    subgraphs: sg.subgraphs,
    analytics,
    logger,
    telemetry: { stream: backends.stream!, analytics, consumer: telemetryConsumer },
    servers,
    telemetryLost: () => publishers().reduce((n, p) => n + (p?.stats.lost ?? 0), 0),
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(warming);
      ops.setDraining();
      /** One step of the stop, in order; a step still running after 2 s is named in the log (where a stop hangs). */
      const step = async (name: string, run: () => unknown) => {
        const slow = setTimeout(() => logger.warn({ step: name }, 'shutdown: still waiting for this step after 2 s'), 2000);
        slow.unref();
        try {
          await run();
        } finally {
          clearTimeout(slow);
        }
      };
      await step('demo fleet', () => demo.closeFleet());
      edge.releaseClients();
      await step('HTTP servers (in-flight requests)', () => Promise.all(servers.map(closeServer)));
      await step('jobs', () => sg.jobs.close());
      await step('gateway', () => gateway.stop());
      await step('plan limits', () => plans.close());
      await step('access layer', () => access.close());
      await step('player limits', () => edge.closeLimits());
      await step('demo simulator', () => demo.closeSimulator());
      await step('change watchers', () => sg.unwatch());
      await step('CAP feed poller', () => sg.stopCapPolling());
      await step('content expiry sweep', () => sg.stopExpirySweep());
      await step('devices runtime', () => sg.devices.runtime.close());
      await step('demo seeding', () => demo.seeded());
      await step('webhook worker', () => sg.webhookWorker.close());
      await step('webhook alerts', () => sg.webhookAlerts.close());
      await step('event log', () => edge.closeEventLog());
      await step('push-event publisher', () => push?.publisher.close());
      await step('telemetry consumer', () => telemetryConsumer.close());
      await step('backends', () => backends.close());
    },
  };
}
