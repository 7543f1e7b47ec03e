/** Distributed mode: the gateway alone, calling each subgraph over HTTP. */
import { readFileSync } from 'node:fs';
import { Router } from 'express';
import { cacheMetrics, createLogger, createOps, InternalTokens, loadConfigOrExit, metricsAccess, onShutdown, SCHEMA_DIR, serveMetrics } from '@pylon/kit';
import { listenHttp } from '@pylon/kit/serving';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createRedisCache, createRedisPubSub } from '@pylon/adapters/redis';
import { createAuditSink } from '@pylon/composition/audit-sink';
import { createRateLimiter } from '@pylon/composition/backends';
import { KEY_REVOKED_CHANNEL } from '@pylon/identity';
import { createMcpHttp } from '@pylon/mcp/http';
import { gatewayEnv, introspectionEnabled, limitsFrom } from './config.js';
import { SignedRemoteDataSource } from './data-sources.js';
import { DATATABLES_EDGE_ROUTES, forwardToProcess, IDENTITY_EDGE_ROUTES } from './edge-forward.js';
import { createGateway } from './gateway.js';
import { createHttpApp } from './http-app.js';
import { createPlayerWeb } from './player-web/player-web.routes.js';
import { createConsole } from './console/console.routes.js';
import { forwardPlayerApi } from './player-forward.js';
import { limitedAuthenticator } from './rate-limits.js';
import { edgeKeyCacheKey, remoteAuthenticator } from './remote-auth.js';
import { credentialsFrom } from './edge-auth.js';

const env = loadConfigOrExit(gatewayEnv);
const logger = createLogger({ level: env.LOG_LEVEL, name: 'gateway' });
const ops = createOps('gateway');
const tokens = new InternalTokens(env.SIGNAGE_INTERNAL_SECRET);
const urls: Record<string, string> = {
  identity: env.IDENTITY_URL,
  devices: env.DEVICES_URL,
  content: env.CONTENT_URL,
  scheduling: env.SCHEDULING_URL,
  datatables: env.DATATABLES_URL,
  analytics: env.ANALYTICS_URL,
};
const graphqlUrl = (base: string) => new URL('/graphql', base).toString();

try {
  const cache = env.REDIS_URL ? createRedisCache({ url: env.REDIS_URL, keyPrefix: 'pylon:gw:' }) : createMemoryCache();
  // Limits live in Redis when configured (shared by gateway replicas), in memory otherwise.
  const limiterEnv = { CACHE_DRIVER: env.REDIS_URL ? ('redis' as const) : ('memory' as const), REDIS_URL: env.REDIS_URL };
  const plans = await createRateLimiter(limiterEnv, { name: 'plans', points: env.RATE_LIMIT_PLAN_POINTS, durationSeconds: env.RATE_LIMIT_DURATION_SECONDS });
  const gateway = await createGateway({
    supergraphSdl: readFileSync(`${SCHEMA_DIR}supergraph.graphql`, 'utf8'),
    buildService: (name) => {
      const base = urls[name];
      if (!base) throw new Error(`no URL configured for subgraph '${name}'`);
      return new SignedRemoteDataSource(graphqlUrl(base), tokens, env.SUBGRAPH_TIMEOUT_MS);
    },
    introspection: introspectionEnabled(env),
    limits: limitsFrom(env),
    logger,
    planLimiter: plans,
  });
  const requests = await createRateLimiter(limiterEnv, { name: 'requests', points: env.RATE_LIMIT_POINTS, durationSeconds: env.RATE_LIMIT_DURATION_SECONDS });
  const failures = await createRateLimiter(limiterEnv, {
    name: 'auth-failures',
    points: env.AUTH_FAILURE_POINTS,
    durationSeconds: env.AUTH_FAILURE_WINDOW_SECONDS,
  });
  const auth = limitedAuthenticator(
    remoteAuthenticator({ identityUrl: env.IDENTITY_URL, tokens, cache, ttlSeconds: env.PRINCIPAL_CACHE_SECONDS, timeoutMs: env.SUBGRAPH_TIMEOUT_MS }),
    { requests, failures, logger },
  );
  // Each per-document cache's entries and estimated bytes on /metrics.
  cacheMetrics(ops.registry, 'pylon_gateway_cache', Object.fromEntries(Object.entries(gateway.caches).map(([name, c]) => [name, c.cache])));
  // Identity announces revoked keys; without Redis this gateway's cache forgets them within PRINCIPAL_CACHE_SECONDS.
  const pubsub = env.REDIS_URL ? createRedisPubSub({ url: env.REDIS_URL }) : undefined;
  await pubsub
    ?.subscribe(KEY_REVOKED_CHANNEL, (m) => {
      const hash = (m as { hash?: unknown })?.hash;
      if (typeof hash === 'string') void cache.del(edgeKeyCacheKey(hash)).catch(() => undefined);
    })
    .catch((err: unknown) => logger.warn({ err }, 'cannot listen for key revocations'));
  const audit = await createAuditSink(env, 'pylon-gateway', logger);
  const checks = Object.fromEntries(
    Object.entries(urls).map(([name, base]) => [
      name,
      async () => {
        const r = await fetch(new URL('/healthz', base), { signal: AbortSignal.timeout(1500) });
        if (!r.ok) throw new Error(`${name} unhealthy`);
      },
    ]),
  );
  const metrics = metricsAccess(env);
  // The OAuth issuer is the identity process: named by OAUTH_ISSUER, or read from its discovery
  // document (retried on each request until it answers: the processes may start in any order).
  let issuer = env.OAUTH_ISSUER;
  const discoverIssuer = () => {
    if (issuer) return issuer;
    void fetch(new URL('/.well-known/openid-configuration', env.IDENTITY_URL), { signal: AbortSignal.timeout(1500) })
      .then(async (r) => (r.ok ? ((await r.json()) as { issuer?: unknown }).issuer : undefined))
      .then((found) => {
        if (typeof found === 'string' && !issuer) issuer = found;
      })
      .catch((err: unknown) => logger.warn({ err }, 'cannot read the OAuth issuer from the identity process yet'));
    return undefined;
  };
  discoverIssuer();
  const app = createHttpApp({
    gateway,
    auth,
    ops,
    logger,
    checks,
    audit: audit.sink,
    trustProxy: env.TRUST_PROXY,
    metrics,
    // The web player's page, and its player API forwarded to the devices process: one origin for a
    // browser at /play (the k8s ingress routes /player to the devices process directly).
    player: Router().use(createPlayerWeb({ logger }), forwardPlayerApi({ devicesUrl: env.DEVICES_URL, auth, tokens })),
    console: createConsole({ logger }),
    // /mcp: tool calls come back to this gateway's API with the caller's own credentials, as in the all-in-one.
    mcp: createMcpHttp({
      // The resource is this gateway (clients check it against the URL they reached): OAUTH_AUDIENCE, else the request's origin.
      resource: (req) => env.OAUTH_AUDIENCE ?? `${req.protocol}://${req.get('host')}`,
      issuer: discoverIssuer,
      authenticate: async (req) => (await auth.authenticate(credentialsFrom(req))) !== null,
    }),
    publicSdl: introspectionEnabled(env),
    // Large imports (jobs) and GET/DELETE /jobs/{id}: served by the datatables process, where the jobs run.
    // Idle limit, not a total: an upload streams for as long as it sends.
    // GET /events/stream: served by the identity process (the push-event log); the 15 s heartbeats keep it inside the idle limit.
    rest: Router().use(
      forwardToProcess({ base: env.DATATABLES_URL, routes: DATATABLES_EDGE_ROUTES, auth, tokens, timeoutMs: 120_000 }),
      forwardToProcess({ base: env.IDENTITY_URL, routes: IDENTITY_EDGE_ROUTES, auth, tokens, timeoutMs: 120_000 }),
    ),
  });
  const server = await listenHttp(app, env.PORT, env.HOST);
  // A second later: the readiness probes that find it ready do not wait for it; the first query need not build it.
  setTimeout(() => gateway.warm(), 1000).unref();
  const metricsServer = await serveMetrics(ops, metrics, env.HOST);
  logger.info({ port: env.PORT }, 'gateway listening');
  onShutdown({
    ops,
    servers: metricsServer ? [server, metricsServer] : [server],
    logger,
    closers: [
      () => gateway.stop(),
      () => audit.close(),
      async () => pubsub?.close(),
      () => requests.close(),
      () => failures.close(),
      () => plans.close(),
      () => cache.close(),
    ],
  });
} catch (e) {
  logger.fatal({ err: e }, 'failed to start');
  process.exit(1);
}
