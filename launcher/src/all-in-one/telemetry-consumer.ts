/**
 * The telemetry consumer in-process (its own role when distributed: analytics/src/ingest.main.ts):
 * reads the telemetry topics and writes the analytics store. Benchmarks pause it to measure what
 * the HTTP edge accepts on its own (readiness fails meanwhile); it resumes at its group's committed
 * offsets. Like the ingest role, it compacts the raw tables' closed months and counts the finished days'
 * unique visitors (ANALYTICS_COMPACT_HOURS).
 */
import type { Logger } from '@pylon/kit';
import { replayDeadLetters, startCompaction, startIngest, type IngestOptions } from '@pylon/analytics';

/** The in-process ingest consumer, stopped and started again (it resumes at its group's committed offsets). */
export interface TelemetryConsumer {
  pause(): Promise<void>;
  resume(): Promise<void>;
}

export interface InProcessConsumer extends TelemetryConsumer {
  /** The readiness check (`consumer` in /readyz): rejects while paused or stopped. */
  check(): Promise<void>;
  close(): Promise<void>;
}

export async function startTelemetryConsumer(
  options: IngestOptions,
  o: { replayDeadLetters: boolean; logger: Logger; compactEveryMs: number },
): Promise<InProcessConsumer> {
  let ingest = await startIngest(options);
  // Closed months of the raw tables merged into one part each, so FINAL reads them without merging.
  const compaction = startCompaction({ analytics: options.analytics, logger: o.logger, everyMs: o.compactEveryMs });
  let paused = false;
  if (o.replayDeadLetters) await replayDeadLetters({ stream: options.stream, analytics: options.analytics, logger: o.logger });
  return {
    async pause() {
      if (paused) return;
      paused = true;
      await ingest.close();
    },
    async resume() {
      if (!paused) return;
      ingest = await startIngest(options);
      paused = false;
    },
    check: () => ingest.check(),
    async close() {
      await compaction.close();
      await ingest.close();
    },
  };
}
