/** Distributed mode: the gateway alone, calling each subgraph over HTTP. */
import { readFileSync } from 'node:fs';
import { createLogger, createOps, InternalTokens, listenHttp, loadConfigOrExit, onShutdown, SCHEMA_DIR } from '@pylon/kit';
import { createMemoryCache } from '@pylon/kit/adapters/cache.memory';
import { createRedisCache } from '@pylon/kit/adapters/cache.redis';
import { gatewayEnv, introspectionEnabled, limitsFrom } from './config.js';
import { SignedRemoteDataSource } from './data-sources.js';
import { createGateway } from './gateway.js';
import { createHttpApp } from './http-app.js';
import { remoteAuthenticator } from './remote-auth.js';

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
  });
  const auth = remoteAuthenticator({ identityUrl: env.IDENTITY_URL, tokens, cache, ttlSeconds: env.PRINCIPAL_CACHE_SECONDS, timeoutMs: env.SUBGRAPH_TIMEOUT_MS });
  const checks = Object.fromEntries(
    Object.entries(urls).map(([name, base]) => [
      name,
      async () => {
        const r = await fetch(new URL('/healthz', base), { signal: AbortSignal.timeout(1500) });
        if (!r.ok) throw new Error(`${name} unhealthy`);
      },
    ]),
  );
  const app = createHttpApp({ gateway, auth, ops, logger, checks });
  const server = await listenHttp(app, env.PORT, env.HOST);
  logger.info({ port: env.PORT }, 'gateway listening');
  onShutdown({ ops, servers: [server], logger, closers: [() => gateway.stop(), () => cache.close()] });
} catch (e) {
  logger.fatal({ err: e }, 'failed to start');
  process.exit(1);
}
