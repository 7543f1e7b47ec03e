/** Operability endpoints every process serves: /healthz, /readyz, /metrics; request logs; graceful shutdown. */
import { timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { redactUrl, type Logger } from '../logger.js';
import { forceExit } from '../process/force-exit.js';
import { envLogLevel, envPort, type TrustProxy } from '../config.js';
import { closeHttpServer } from './close-server.js';

export interface Ops {
  registry: Registry;
  /** Flips /readyz to 503 (first step of shutdown). */
  setDraining(): void;
  readonly draining: boolean;
}

export type ReadinessCheck = () => Promise<void>;

export function createOps(service: string): Ops {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  let draining = false;
  return {
    registry,
    setDraining: () => {
      draining = true;
    },
    get draining() {
      return draining;
    },
  };
}

/**
 * Who may read /metrics (process internals: heap, event loop, request counts per route).
 * METRICS_PORT: served only on a separate internal listener (the cluster scrapes it; it is never
 * exposed), not on the public port. METRICS_TOKEN: `Authorization: Bearer <token>` required
 * wherever it is served. Neither: the public port answers only loopback callers whose headers are
 * all ones a local client sends (LOCAL_METRICS_HEADERS: local `npm start`), everyone else gets 404.
 */
export const metricsEnv = {
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_TOKEN: z.string().min(16).max(512).optional(),
};

/** What every serving process reads: its log level, where it listens (PORT defaults to `defaultPort`) and metricsEnv. */
export const serverEnv = (defaultPort: number) => ({
  LOG_LEVEL: envLogLevel(),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: envPort(defaultPort),
  ...metricsEnv,
});

export interface MetricsAccess {
  /** /metrics is served on this internal port only (see serveMetrics). */
  internalPort?: number | undefined;
  token?: string | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/**
 * The headers a local caller (curl, a browser, Prometheus, Node's fetch) sends. Without a port or
 * token, /metrics answers a loopback peer only when every header it sent is one of these: a proxy
 * in front adds some forwarding header, and proxies name theirs differently (X-Real-IP, Via,
 * X-Envoy-External-Address, Fastly-Client-IP ...), so a list of known forwarding headers always
 * missed one (issue 34, L5); this lists what is allowed instead.
 */
export const LOCAL_METRICS_HEADERS = new Set([
  'host',
  'connection',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'pragma',
  'priority',
  'dnt',
  'upgrade-insecure-requests',
  'if-none-match',
  'if-modified-since',
  'x-prometheus-scrape-timeout-seconds',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-dest',
  'sec-fetch-user',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
]);
const onlyLocalHeaders = (req: Request) => Object.keys(req.headers).every((h) => LOCAL_METRICS_HEADERS.has(h));

function metricsHandler(ops: Ops, access: MetricsAccess, where: 'public' | 'internal') {
  const expected = access.token ? Buffer.from(`Bearer ${access.token}`) : undefined;
  return async (req: Request, res: Response, next: NextFunction) => {
    if (where === 'public' && access.internalPort) return next();
    if (expected) {
      const given = Buffer.from(req.get('authorization') ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'the metrics token is required' } });
        return;
      }
    } else if (where === 'public' && (!LOOPBACK.has(req.socket.remoteAddress ?? '') || !onlyLocalHeaders(req))) {
      return next();
    }
    res.type(ops.registry.contentType).send(await ops.registry.metrics());
  };
}

/** Mounts /healthz (process up), /readyz (every backend answers), /metrics (Prometheus, as `metrics` allows). */
export function mountOps(app: Express, ops: Ops, checks: Record<string, ReadinessCheck>, metrics: MetricsAccess = {}): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (ops.draining) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const results: Record<string, string> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
          results[name] = 'ok';
        } catch (e) {
          results[name] = e instanceof Error && e.message === 'timeout' ? 'timeout' : 'unavailable';
        }
      }),
    );
    const ok = Object.values(results).every((v) => v === 'ok');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not ready', checks: results });
  });
  app.get('/metrics', metricsHandler(ops, metrics, 'public'));
}

/** The internal metrics listener (METRICS_PORT): /metrics and /healthz only; undefined when no port is set. */
export async function serveMetrics(ops: Ops, access: MetricsAccess, host: string): Promise<Server | undefined> {
  const port = access.internalPort;
  if (!port) return undefined;
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/metrics', metricsHandler(ops, access, 'internal'));
  return new Promise((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
}

/** MetricsAccess from the METRICS_* settings. */
export const metricsAccess = (env: { METRICS_PORT?: number | undefined; METRICS_TOKEN?: string | undefined }): MetricsAccess => ({
  internalPort: env.METRICS_PORT,
  token: env.METRICS_TOKEN,
});

/** What every public HTTP surface (the gateway's, the legacy interface's) is given for publicHttpApp and mountOps. */
export interface PublicHttpOptions {
  ops: Ops;
  logger: Logger;
  /** Which proxies may set X-Forwarded-For (default: loopback). */
  trustProxy?: TrustProxy;
  /** Who may read /metrics here (default: loopback callers only). */
  metrics?: MetricsAccess;
}

/**
 * A public HTTP surface's first steps (the gateway's, the legacy interface's): no X-Powered-By,
 * X-Forwarded-For believed from `trustProxy` only (default: loopback), an x-request-id on every
 * answer (the caller's, at most 100 characters, or a new one), then requestLogging.
 */
export function publicHttpApp(o: PublicHttpOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', o.trustProxy ?? 'loopback');
  app.use((req, res, next) => {
    res.setHeader('x-request-id', req.get('x-request-id')?.slice(0, 100) || crypto.randomUUID());
    next();
  });
  app.use(requestLogging(o.ops, o.logger));
  return app;
}

/** Request duration histogram plus one JSON log line per request (credentials redacted). */
export function requestLogging(ops: Ops, logger: Logger) {
  // One process may serve several apps (all-in-one: main port and legacy port) on one registry.
  const existing = ops.registry.getSingleMetric('http_request_duration_seconds') as Histogram<'method' | 'route' | 'status'> | undefined;
  const histogram =
    existing ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [ops.registry],
    });
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      // Facades without express routes name their operation's path template in res.locals.route.
      const route = (req.route?.path as string | undefined) ?? (res.locals.route as string | undefined) ?? req.baseUrl ?? '';
      histogram.observe({ method: req.method, route: route || 'unmatched', status: String(res.statusCode) }, seconds);
      if (req.path === '/healthz' || req.path === '/readyz' || req.path === '/metrics') return;
      // The line (its redacted URL above all) is built only when written: ingestion serves thousands a second.
      if (!logger.isLevelEnabled('info')) return;
      logger.info(
        {
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          ms: Math.round(seconds * 1000),
          requestId: res.getHeader('x-request-id'),
        },
        'request',
      );
    });
    next();
  };
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: readiness goes 503 at once, the servers stop accepting
 * and finish in-flight requests (for up to 5 s: closeHttpServer), then `closers` run in order (callers pass them in reverse
 * order of creation: facades, buffers, stores).
 */
export function onShutdown(opts: {
  ops: Ops;
  servers: Server[];
  closers: (() => Promise<void>)[];
  logger: Logger;
  graceMs?: number;
}): (signal: string) => Promise<void> {
  let started = false;
  const shutdown = async (signal: string) => {
    if (started) return;
    started = true;
    opts.logger.info({ signal }, 'shutting down');
    opts.ops.setDraining();
    const force = setTimeout(() => {
      opts.logger.error('shutdown took too long; exiting');
      forceExit('shutdown took too long; exiting');
    }, opts.graceMs ?? 15000);
    force.unref();
    await Promise.all(opts.servers.map((s) => closeHttpServer(s)));
    for (const close of opts.closers) {
      try {
        await close();
      } catch (e) {
        opts.logger.error({ err: e }, 'error while closing');
      }
    }
    opts.logger.info('stopped');
  };
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    // `on`, not `once`: a library that stops on a signal and then re-raises it (Apollo Server does
    // unless told not to) would otherwise kill the process (status 143) before the closers ran.
    process.on(sig, () => {
      if (started) return;
      void shutdown(sig).then(() => process.exit(0));
    });
  }
  return shutdown;
}
