/**
 * Composition root of the telemetry consumer (the "ingest" role): stream -> analytics store,
 * scaled separately from the subgraphs. Serves /healthz, /readyz (fails when the consumer is
 * dead or a backend is down) and /metrics (lag, records in/out/dead-lettered). The all-in-one
 * (`npm start`) runs the same startIngest in-process.
 *
 * `INGEST_REPLAY_DEAD_LETTERS=true`: first replays every dead letter to its original topic, once.
 */
import { loadConfigOrExit, telemetryMetrics } from '@pylon/kit';
import { runWorkerProcess } from '@pylon/composition/worker-process';
import { ingestEnv } from './ingest.config.js';
import { startIngest } from './workers/ingest.js';
import { replayDeadLetters } from './workers/dead-letters.js';
import { startCompaction } from './workers/compaction.js';

await runWorkerProcess({
  name: 'ingest',
  label: 'telemetry consumer running',
  env: loadConfigOrExit(ingestEnv),
  needs: ['analytics', 'stream'],
  start: async ({ env, backends, logger, ops }) => {
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
    const compaction = startCompaction({ analytics: backends.analytics!, logger, everyMs: env.ANALYTICS_COMPACT_HOURS * 3_600_000 });
    return { check: () => ingest.check(), close: () => compaction.close().then(() => ingest.close()) };
  },
});
