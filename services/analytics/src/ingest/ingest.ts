/**
 * The analytics ingest: consumes every telemetry topic and inserts each batch into its table.
 * Offsets advance only after the insert succeeded (the stream retries a failed batch with
 * backoff), and rows carry event ids in ReplacingMergeTree tables, so a replay collapses:
 * at-least-once delivery, exactly-once results under FINAL.
 */
import { TOPIC_TABLES, type AnalyticsStore, type EventStream, type Logger, type Subscription, type Topic } from '@pylon/kit';

export interface Ingest {
  /** Stops after the batches in flight were written. */
  close(): Promise<void>;
}

export async function startIngest(deps: {
  stream: EventStream;
  analytics: AnalyticsStore;
  logger: Logger;
  group?: string;
  maxBatchSize?: number;
  maxWaitMs?: number;
}): Promise<Ingest> {
  const subs: Subscription[] = [];
  for (const [topic, table] of Object.entries(TOPIC_TABLES) as [Topic, string][]) {
    subs.push(
      await deps.stream.subscribe(
        topic,
        { group: deps.group ?? 'analytics-ingest', maxBatchSize: deps.maxBatchSize ?? 5000, maxWaitMs: deps.maxWaitMs ?? 500 },
        async (batch) => {
          try {
            await deps.analytics.insert(
              table,
              batch.map((m) => m.value as Record<string, unknown>),
            );
          } catch (e) {
            deps.logger.warn({ err: e, topic, rows: batch.length }, 'analytics insert failed; the batch will be retried');
            throw e;
          }
        },
      ),
    );
  }
  return {
    async close() {
      await Promise.all(subs.map((s) => s.close()));
    },
  };
}
