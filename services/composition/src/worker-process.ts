/**
 * The process around a worker role in distributed mode (the telemetry consumer, the webhook
 * delivery worker): listen at once (live, not ready), open the backends it needs and start the
 * worker in the background until they answer (background-start.ts), serve /healthz, /readyz (the
 * backends' checks and the worker's own `consumer` check) and /metrics, shut down gracefully (the
 * servers, then the worker, then the backends). One composition root shape, so the workers start,
 * report and stop alike; each keeps its own settings schema (loaded by its entry).
 */
import express from 'express';
import { metricsAccess, mountOps, type Logger, type Ops, type ReadinessCheck } from '@pylon/kit';
import { tagBackend, type BackendEnv, type Backends, type createBackends } from './backends.js';
import { runOnBackends } from './background-start.js';

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
  await runOnBackends({
    name: o.name,
    env,
    needs: o.needs,
    build: async ({ backends, logger, ops }) => {
      // A worker consumes its backends at once: wait until each answers, so /readyz names the one that does not.
      await Promise.all(
        Object.entries(backends.checks).map(([name, check]) =>
          check().catch((e: unknown) => {
            tagBackend(e, name);
            throw e;
          }),
        ),
      );
      const worker = await o.start({ env, backends, logger, ops });
      backends.onClose(() => worker.close());
      const app = express();
      app.disable('x-powered-by');
      mountOps(app, ops, { ...backends.checks, consumer: worker.check }, metricsAccess(env));
      return { app, label: o.label, closers: [() => backends.close()] };
    },
  });
}
