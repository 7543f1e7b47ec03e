/**
 * Serves one subgraph over HTTP for distributed mode: POST /graphql (context only from the
 * signed internal token), plus /healthz, /readyz and /metrics.
 */
import { createServer, type Server } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Express } from 'express';
import { GraphQLError } from 'graphql';
import { INTERNAL_TOKEN_HEADER } from '../auth/principal.js';
import { isAppError } from '../errors.js';
import { formatError } from '../graphql/errors.js';
import type { Subgraph, SubgraphContext } from '../graphql/context.js';
import type { Logger } from '../logger.js';
import { mountOps, requestLogging, type MetricsAccess, type Ops, type ReadinessCheck } from './ops.js';
import { flushCompileCache } from '../process/compile-cache.js';

export interface SubgraphHttp {
  app: Express;
  server: ApolloServer<SubgraphContext>;
}

export async function createSubgraphHttp(
  subgraph: Subgraph,
  o: { ops: Ops; logger: Logger; checks: Record<string, ReadinessCheck>; metrics?: MetricsAccess; extend?: (app: Express) => void },
): Promise<SubgraphHttp> {
  // Apollo Server's HTTP pipeline (parsing, validation, CSRF, error formatting) in front of the
  // subgraph's own execution (compiled documents, subgraph.ts), as the all-in-one calls it in-process:
  // the executor slot Apollo offers a gateway.
  const server = new ApolloServer<SubgraphContext>({
    gateway: {
      onSchemaLoadOrUpdate(callback) {
        callback({ apiSchema: subgraph.schema, coreSupergraphSdl: '' });
        return () => undefined;
      },
      load: async () => ({
        executor: (rc) =>
          subgraph.executeDocument(
            rc.document,
            {
              query: rc.source,
              ...(rc.request.variables ? { variables: rc.request.variables } : {}),
              ...(rc.operationName ? { operationName: rc.operationName } : {}),
            },
            rc.context as SubgraphContext,
          ),
      }),
      stop: async () => undefined,
    },
    introspection: false,
    csrfPrevention: true,
    // The process's onShutdown owns SIGTERM (servers, then closers): Apollo's own handler stopped the
    // server early and re-raised the signal, killing the process (143) or stalling its stop for 15 s.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    formatError,
    // No usage reporting and no HTTP cache hints: per-field hooks would only cost time.
    plugins: [ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginCacheControlDisabled()],
  });
  await server.start();
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLogging(o.ops, o.logger));
  mountOps(app, o.ops, o.checks, o.metrics);
  o.extend?.(app);
  app.use(
    '/graphql',
    express.json({ limit: '2mb' }),
    expressMiddleware(server, {
      context: async ({ req }) => {
        try {
          return await subgraph.createContext(req.get(INTERNAL_TOKEN_HEADER), req.get('x-request-id') ?? undefined);
        } catch (e) {
          const message = isAppError(e) ? e.message : 'unauthenticated';
          throw new GraphQLError(`subgraph refused the call: ${message}`, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
        }
      },
    }),
  );
  return { app, server };
}

/**
 * How long an idle kept-alive connection stays open. Longer than the clients' own idle limits (undici
 * 4 s, browsers 10 s or more behind a proxy, load balancers 60 s), so the client always closes first:
 * with Node's 5 s default a client that reused a connection just as the server closed it got a reset
 * (ECONNRESET / "other side closed") on a request the server never saw.
 */
export const KEEP_ALIVE_MS = 65_000;

function keepAlive<S extends Server>(s: S): S {
  s.keepAliveTimeout = KEEP_ALIVE_MS;
  // Above keepAliveTimeout, so a connection's next request headers are not cut short by it.
  s.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return s;
}

/** Listens; once it does, the compile cache is written (flushCompileCache): the process's code is loaded by then. */
export function listenHttp(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => {
      if (err) return reject(err);
      flushCompileCache();
      resolve(keepAlive(s));
    });
  });
}

/** A listening server whose handler is replaced once the process has started (serve). */
export interface SwitchableServer {
  server: Server;
  /** From now on `app` answers every request; the compile cache is written (the code is loaded by then). */
  serve(app: Express): void;
}

/**
 * Listens with `first` (the ops endpoints of a process still opening its backends: /healthz 200,
 * /readyz 503) and hands over to the full app without closing the port, so a process that waits
 * for a backend stays live and is never restarted for it.
 */
export function listenHttpSwitchable(first: Express, port: number, host: string): Promise<SwitchableServer> {
  let current: Express = first;
  const server = keepAlive(createServer((req, res) => current(req, res)));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        server,
        serve(app) {
          current = app;
          flushCompileCache();
        },
      });
    });
  });
}
