/**
 * Composition root of the all-in-one server (`npm start`): every backend, the six subgraphs
 * in-process, the gateway, the REST facade and the legacy adapter, in one process.
 * Tests and benchmarks start it through `startAllInOne` exactly as `npm start` does.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createOps, InternalTokens, SCHEMA_DIR, type GatewayClient, type Logger, type Subgraph } from '@pylon/kit';
import { createBackends } from '@pylon/kit/composition/backends';
import { createAnalyticsSubgraph, startIngest } from '@pylon/analytics';
import { createContentSubgraph } from '@pylon/content';
import { createDataTablesSubgraph } from '@pylon/datatables';
import { createDevicesSubgraph } from '@pylon/devices';
import { createIdentitySubgraph } from '@pylon/identity';
import { createSchedulingSubgraph } from '@pylon/scheduling';
import { createLegacyApp } from '@pylon/legacy-adapter';
import { createRestFacade } from '@pylon/rest-facade';
import { introspectionEnabled, limitsFrom, type AllInOneEnv } from './config.js';
import { InProcessDataSource } from './data-sources.js';
import { seedDemo } from './demo.js';
import type { EdgeAuthenticator } from './edge-auth.js';
import { createGateway, type Gateway } from './gateway.js';
import { createHttpApp } from './http-app.js';
import { inProcessGatewayClient } from './in-process-client.js';

export interface AllInOne {
  baseUrl: string;
  legacyUrl: string;
  /** The bootstrap key, when this start created one. */
  apiKey?: string;
  gateway: Gateway;
  client: GatewayClient;
  subgraphs: Record<string, Subgraph>;
  logger: Logger;
  /** Graceful stop: readiness off, servers drained, stores closed in reverse order. */
  close(): Promise<void>;
  servers: Server[];
}

const listen = (app: import('express').Express, port: number, host: string) =>
  new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });

export async function startAllInOne(env: AllInOneEnv, opts: { logger?: Logger } = {}): Promise<AllInOne> {
  const logger = opts.logger ?? createLogger({ level: env.LOG_LEVEL, name: 'pylon' });
  const ops = createOps('all-in-one');
  const backends = await createBackends(env, ['documents', 'analytics', 'cache', 'stream', 'blobs']);
  const documents = backends.documents!;
  const analytics = backends.analytics!;
  const cache = backends.cache!;
  const ingest = await startIngest({ stream: backends.stream!, analytics, logger });
  const tokens = new InternalTokens(env.SIGNAGE_INTERNAL_SECRET ?? randomBytes(32).toString('hex'));

  const identity = createIdentitySubgraph({ documents, cache, tokens, principalCacheSeconds: env.PRINCIPAL_CACHE_SECONDS });
  const devices = createDevicesSubgraph({ documents, tokens, onlineWindowSeconds: env.DEVICE_ONLINE_WINDOW_SECONDS });
  const subgraphs: Record<string, Subgraph> = {
    identity,
    devices,
    content: createContentSubgraph({ documents, tokens }),
    scheduling: createSchedulingSubgraph({ documents, tokens }),
    datatables: createDataTablesSubgraph({ documents, tokens }),
    analytics: createAnalyticsSubgraph({ analytics, tokens }),
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

  const auth: EdgeAuthenticator = {
    // Bearer tokens arrive with the OAuth server (identity issue); until then only keys authenticate.
    authenticate: async ({ apiKey }) => (apiKey ? identity.authenticator.authenticate(apiKey) : null),
  };
  const client = inProcessGatewayClient(gateway, auth);
  const rest = await createRestFacade({ client, logger });
  const app = createHttpApp({ gateway, auth, ops, logger, checks: backends.checks, rest });
  const legacy = createLegacyApp({ client, logger, ops });

  const demo = env.SIGNAGE_DEMO ? await seedDemo({ identity: identity.repo, devices: devices.repo, bootstrapKey: env.SIGNAGE_BOOTSTRAP_API_KEY }) : { created: false };

  const servers = [await listen(app, env.PORT, env.HOST), await listen(legacy, env.LEGACY_PORT, env.HOST)];
  const url = (s: Server) => {
    const a = s.address() as AddressInfo;
    const host = a.address === '0.0.0.0' || a.address === '::' ? 'localhost' : a.address.includes(':') ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  };
  let closed = false;
  return {
    baseUrl: url(servers[0]!),
    legacyUrl: url(servers[1]!),
    ...(demo.apiKey ? { apiKey: demo.apiKey } : {}),
    gateway,
    client,
    subgraphs,
    logger,
    servers,
    async close() {
      if (closed) return;
      closed = true;
      ops.setDraining();
      await Promise.all(servers.map((s) => new Promise<void>((r) => { s.close(() => r()); s.closeIdleConnections(); })));
      await gateway.stop();
      await ingest.close();
      await backends.close();
    },
  };
}
