/** Operability endpoints every process serves: /healthz, /readyz, /metrics; request logs; graceful shutdown. */
import type { Server } from 'node:http';
import type { Express, NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { redactUrl, type Logger } from '../logger.js';

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

/** Mounts /healthz (process up), /readyz (every backend answers), /metrics (Prometheus). */
export function mountOps(app: Express, ops: Ops, checks: Record<string, ReadinessCheck>): void {
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
  app.get('/metrics', async (_req, res) => {
    res.type(ops.registry.contentType).send(await ops.registry.metrics());
  });
}

/** Request duration histogram plus one JSON log line per request (credentials redacted). */
export function requestLogging(ops: Ops, logger: Logger) {
  // One process may serve several apps (all-in-one: main port and legacy port) on one registry.
  const existing = ops.registry.getSingleMetric('http_request_duration_seconds') as Histogram<'method' | 'route' | 'status'> | undefined;
  const histogram = existing ?? new Histogram({
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
      logger.info({ method: req.method, url: redactUrl(req.originalUrl), status: res.statusCode, ms: Math.round(seconds * 1000), requestId: res.getHeader('x-request-id') }, 'request');
    });
    next();
  };
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: readiness goes 503 at once, the servers stop accepting
 * and finish in-flight requests, then `closers` run in order (callers pass them in reverse
 * order of creation: facades, buffers, stores).
 */
export function onShutdown(opts: { ops: Ops; servers: Server[]; closers: (() => Promise<void>)[]; logger: Logger; graceMs?: number }): (signal: string) => Promise<void> {
  let started = false;
  const shutdown = async (signal: string) => {
    if (started) return;
    started = true;
    opts.logger.info({ signal }, 'shutting down');
    opts.ops.setDraining();
    const force = setTimeout(() => {
      opts.logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, opts.graceMs ?? 15000);
    force.unref();
    await Promise.all(
      opts.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeIdleConnections();
          }),
      ),
    );
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
    process.once(sig, () => {
      void shutdown(sig).then(() => process.exit(0));
    });
  }
  return shutdown;
}
