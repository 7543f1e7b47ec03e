/**
 * The process around a worker role in distributed mode (the telemetry consumer, the webhook
 * delivery worker): open the backends it needs, start the worker, serve /healthz, /readyz (the
 * backends' checks and the worker's own `consumer` check) and /metrics, shut down gracefully (the
 * servers, then the worker, then the backends). One composition root shape, so the workers start,
 * report and stop alike; each keeps its own settings schema (loaded by its entry).
 */
import express from 'express';
import { createLogger, createOps, listenHttp, metricsAccess, mountOps, onShutdown, serveMetrics, type Logger, type Ops, type ReadinessCheck } from '@pylon/kit';
import { createBackends, type BackendEnv, type Backends } from './backends.js';

/** The settings every worker process has (besides its own). */
export type WorkerProcessEnv = BackendEnv &
  Parameters<typeof metricsAccess>[0] & {
    LOG_LEVEL: string;
    HOST: string;
    PORT: number;
  };

/** A started worker: its readiness, and what stops it (before the backends close). */
export interface StartedWorker {
  check: ReadinessCheck;
  close(): Promise<void>;
}

export interface WorkerProcessOptions<E extends WorkerProcessEnv> {
  /** Log and metrics name ('ingest'); the backends' client id is `pylon-<name>`. */
  name: string;
  /** Logged once it listens ('telemetry consumer running'). */
  label: string;
  env: E;
  needs: Parameters<typeof createBackends>[1];
  start: (deps: { env: E; backends: Backends; logger: Logger; ops: Ops }) => Promise<StartedWorker>;
}

export async function runWorkerProcess<E extends WorkerProcessEnv>(o: WorkerProcessOptions<E>): Promise<void> {
  const { env } = o;
  const logger = createLogger({ level: env.LOG_LEVEL, name: o.name });
  const ops = createOps(o.name);
  try {
    const backends = await createBackends(env, o.needs, `pylon-${o.name}`, { logger });
    const worker = await o.start({ env, backends, logger, ops });
    backends.onClose(() => worker.close());
    const app = express();
    app.disable('x-powered-by');
    mountOps(app, ops, { ...backends.checks, consumer: worker.check }, metricsAccess(env));
    const http = await listenHttp(app, env.PORT, env.HOST);
    logger.info({ port: env.PORT }, o.label);
    const metricsServer = await serveMetrics(ops, metricsAccess(env), env.HOST);
    onShutdown({ ops, servers: metricsServer ? [http, metricsServer] : [http], logger, closers: [() => backends.close()] });
  } catch (e) {
    logger.fatal({ err: e }, 'failed to start');
    process.exit(1);
  }
}
