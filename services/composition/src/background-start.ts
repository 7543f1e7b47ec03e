/**
 * How a distributed role starts when its backends may not answer yet: it listens at once with its
 * ops endpoints (/healthz 200: live; /readyz 503 naming the backend it waits for), opens its
 * backends and builds its app in the background, retrying with capped back-off (kit retryUntil),
 * and hands the port over to the full app once that succeeds: ready without a restart. SIGTERM
 * during the wait stops the retries and exits cleanly. Used by the subgraph and worker processes.
 */
import type { Server } from 'node:http';
import express, { type Express } from 'express';
import {
  createLogger,
  createOps,
  metricsAccess,
  mountOps,
  onShutdown,
  retryUntil,
  serveMetrics,
  type Logger,
  type MetricsAccess,
  type Ops,
  type ReadinessCheck,
} from '@pylon/kit';
import { listenHttpSwitchable } from '@pylon/kit/serving';
import { createBackends, failedBackend, type BackendEnv, type Backends } from './backends.js';

/** What one successful start attempt built: the app to serve and what stops it (in order). */
export interface Started {
  app: Express;
  closers: (() => Promise<void>)[];
  /** Logged once the app serves ('identity subgraph listening'). */
  label: string;
}

export interface BackgroundStartOptions {
  logger: Logger;
  ops: Ops;
  port: number;
  host: string;
  metrics: MetricsAccess;
  /**
   * One attempt: opens what the process needs and builds its app. On failure it must close what it
   * opened and reject; the error names its backend through failedBackend when it is known.
   */
  attempt: () => Promise<Started>;
  /** Retry waits (tests shorten them). */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** Resolves with the listening server once the full app serves, or once a stop signal ended the waiting; rejects only when a port cannot be bound. */
export async function startInBackground(o: BackgroundStartOptions): Promise<Server> {
  // /readyz while starting: 'starting' until the app serves, plus the backend the last attempt could not reach.
  const waiting: Record<string, ReadinessCheck> = { starting: () => Promise.reject(new Error('starting')) };
  const front = express();
  front.disable('x-powered-by');
  mountOps(front, o.ops, waiting, o.metrics);
  // Anything else before the app serves: a clear 503 to retry, not the 404 of an empty app.
  front.use((_req, res) => {
    const backend = Object.keys(waiting).find((k) => k !== 'starting');
    res.setHeader('Retry-After', '5');
    res.status(503).json({ error: { code: 'UNAVAILABLE', message: `starting${backend ? `: waiting for ${backend}` : ''}; retry later` } });
  });
  const http = await listenHttpSwitchable(front, o.port, o.host);
  const metricsServer = await serveMetrics(o.ops, o.metrics, o.host);
  const stop = new AbortController();
  // Filled once started; onShutdown reads the list when the signal comes.
  const closers: (() => Promise<void>)[] = [async () => stop.abort()];
  onShutdown({ ops: o.ops, servers: metricsServer ? [http.server, metricsServer] : [http.server], logger: o.logger, closers });
  const started = await retryUntil(() => o.attempt(), {
    signal: stop.signal,
    ...(o.firstDelayMs !== undefined ? { firstDelayMs: o.firstDelayMs } : {}),
    ...(o.maxDelayMs !== undefined ? { maxDelayMs: o.maxDelayMs } : {}),
    onFailure(err, attempt, retryInMs) {
      const backend = failedBackend(err);
      for (const name of Object.keys(waiting)) if (name !== 'starting') delete waiting[name];
      if (backend) waiting[backend] = () => Promise.reject(new Error(`${backend} unavailable`));
      o.logger.warn({ err, backend, attempt, retryInMs }, `cannot start yet${backend ? `: ${backend} unavailable` : ''}; retrying (live, not ready)`);
    },
  });
  if (!started) return http.server;
  closers.push(...started.closers);
  http.serve(started.app);
  o.logger.info({ port: o.port, host: o.host }, started.label);
  return http.server;
}

/** The settings a role started this way has. */
type RoleEnv = BackendEnv & { LOG_LEVEL: string; PORT: number; HOST: string } & Parameters<typeof metricsAccess>[0];

/**
 * A role on its backends, started in the background: each attempt opens the backends it needs and
 * builds on them (closing them again when building fails); a port it cannot bind ends the process.
 */
export async function runOnBackends<E extends RoleEnv>(o: {
  name: string;
  env: E;
  needs: Parameters<typeof createBackends>[1];
  build: (deps: { backends: Backends; logger: Logger; ops: Ops }) => Promise<Started>;
}): Promise<void> {
  const logger = createLogger({ level: o.env.LOG_LEVEL, name: o.name });
  const ops = createOps(o.name);
  try {
    await startInBackground({
      logger,
      ops,
      port: o.env.PORT,
      host: o.env.HOST,
      metrics: metricsAccess(o.env),
      attempt: async () => {
        const backends = await createBackends(o.env, o.needs, `pylon-${o.name}`, { logger });
        try {
          return await o.build({ backends, logger, ops });
        } catch (e) {
          await backends.close().catch(() => undefined);
          throw e;
        }
      },
    });
  } catch (e) {
    logger.fatal({ err: e }, 'failed to start');
    process.exit(1);
  }
}
