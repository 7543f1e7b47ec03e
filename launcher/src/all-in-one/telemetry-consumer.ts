/**
 * The telemetry consumer in-process (its own role when distributed: analytics/src/ingest.main.ts):
 * reads the telemetry topics and writes the analytics store. Benchmarks pause it to measure what
 * the HTTP edge accepts on its own (readiness fails meanwhile); it resumes at its group's committed
 * offsets.
 */
import type { Logger } from '@pylon/kit';
import { replayDeadLetters, startIngest, type IngestOptions } from '@pylon/analytics';

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

export async function startTelemetryConsumer(options: IngestOptions, o: { replayDeadLetters: boolean; logger: Logger }): Promise<InProcessConsumer> {
  let ingest = await startIngest(options);
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
    close: () => ingest.close(),
  };
}
