/**
 * Composition root of the telemetry consumer (the "ingest" role): stream -> analytics store,
 * scaled separately from the subgraphs. Serves /healthz, /readyz (fails when the consumer is
 * dead or a backend is down) and /metrics (lag, records in/out/dead-lettered). The all-in-one
 * (`npm start`) runs the same startIngest in-process.
 *
 * `INGEST_REPLAY_DEAD_LETTERS=true`: first replays every dead letter to its original topic, once.
 */
import express from 'express';
import { createLogger, createOps, listenHttp, loadConfigOrExit, metricsAccess, mountOps, onShutdown, serveMetrics, telemetryMetrics } from '@pylon/kit';
import { createBackends } from '@pylon/composition/backends';
import { ingestEnv } from './ingest.config.js';
import { startIngest } from './ingest/ingest.js';
import { replayDeadLetters } from './ingest/dead-letters.js';

const env = loadConfigOrExit(ingestEnv);
const logger = createLogger({ level: env.LOG_LEVEL, name: 'ingest' });
const ops = createOps('ingest');
try {
  const backends = await createBackends(env, ['analytics', 'stream'], 'pylon-ingest', { logger });
  if (env.INGEST_REPLAY_DEAD_LETTERS) await replayDeadLetters({ stream: backends.stream!, analytics: backends.analytics!, logger });
  const ingest = await startIngest({
    stream: backends.stream!,
    analytics: backends.analytics!,
    logger,
    maxBatchSize: env.INGEST_MAX_BATCH,
    maxWaitMs: env.INGEST_MAX_WAIT_MS,
    maxAttempts: env.INGEST_MAX_ATTEMPTS,
    metrics: telemetryMetrics(ops.registry, { stream: backends.stream!, spool: backends.spool }),
  });
  backends.onClose(() => ingest.close());
  const app = express();
  app.disable('x-powered-by');
  mountOps(app, ops, { ...backends.checks, consumer: () => ingest.check() }, metricsAccess(env));
  const http = await listenHttp(app, env.PORT, env.HOST);
  logger.info({ port: env.PORT }, 'telemetry consumer running');
  const metricsServer = await serveMetrics(ops, metricsAccess(env), env.HOST);
  onShutdown({ ops, servers: metricsServer ? [http, metricsServer] : [http], logger, closers: [() => backends.close()] });
} catch (e) {
  logger.fatal({ err: e }, 'failed to start');
  process.exit(1);
}
