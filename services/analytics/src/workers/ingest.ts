/**
 * The analytics ingest: ONE consumer (one group) over every telemetry topic, inserting each batch
 * into its topic's table, plus the dead-letter topic into `dead_letters`.
 *
 * - Batches are large: up to `maxBatchSize` messages or `maxWaitMs`, whichever first. A message
 *   carries one record or a player request's batch (`recordsOf`); inserts hold at most
 *   `maxRowsPerInsert` rows.
 * - Offsets advance only after the insert succeeded, and rows carry event ids in
 *   ReplacingMergeTree tables, so a redelivered batch collapses: at-least-once delivery,
 *   exactly-once results under FINAL.
 * - Store down: the failure is marked transient (the store does not answer a ping), so the stream
 *   backs off and retries forever; nothing is skipped, nothing dead-lettered; the consumer resumes
 *   where it stopped once the store answers.
 * - Store up but refusing a batch: after `maxAttempts` the stream retries its messages one by one
 *   and moves each that still fails to the dead-letter topic (replay: dead-letters.ts).
 * - `check()` fails once a consumer stopped for good: /readyz reports the process not ready.
 */
import {
  AppError,
  DEAD_LETTER_TOPIC,
  TOPIC_TABLES,
  TransientError,
  recordsOf,
  type AnalyticsStore,
  type DeadLetter,
  type EventStream,
  type Logger,
  type StreamMessage,
  type Subscription,
  type TelemetryMetrics,
  type Topic,
} from '@pylon/kit';

export interface Ingest {
  /** Stops after the batches in flight were written. */
  close(): Promise<void>;
  /** Rejects when a consumer is no longer running (a readiness check). */
  check(): Promise<void>;
}

export interface IngestOptions {
  stream: EventStream;
  analytics: AnalyticsStore;
  logger: Logger;
  group?: string;
  maxBatchSize?: number;
  maxWaitMs?: number;
  /** Failed inserts of a batch (store up) before its messages go one by one to the dead letter. Default 5. */
  maxAttempts?: number;
  /** Rows per store insert (a batch of messages holding whole player requests may carry more). Default 50 000. */
  maxRowsPerInsert?: number;
  metrics?: TelemetryMetrics;
}

const isRow = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function startIngest(deps: IngestOptions): Promise<Ingest> {
  const group = deps.group ?? 'analytics-ingest';
  const batching = { group, maxBatchSize: deps.maxBatchSize ?? 5000, maxWaitMs: deps.maxWaitMs ?? 500 };
  const maxRows = deps.maxRowsPerInsert ?? 50_000;
  let closed = false;

  /** Inserts, telling a store that is down (transient: wait) from one that refuses the rows. */
  async function insert(table: string, topic: string, rows: Record<string, unknown>[]): Promise<void> {
    try {
      await deps.analytics.insert(table, rows);
    } catch (e) {
      const up = await deps.analytics.ping().then(
        () => true,
        () => false,
      );
      if (!up) {
        deps.logger.warn({ topic, rows: rows.length }, 'analytics store unavailable; the ingest pauses and retries');
        throw new TransientError('analytics store unavailable', { cause: e });
      }
      deps.logger.warn({ err: e, topic, rows: rows.length }, 'analytics store refused a batch; it is retried, then dead-lettered');
      throw e;
    }
    deps.metrics?.out.inc({ table }, rows.length);
  }

  const telemetry = await deps.stream.subscribe(
    Object.keys(TOPIC_TABLES),
    { ...batching, deadLetter: { topic: DEAD_LETTER_TOPIC, maxAttempts: deps.maxAttempts ?? 5 } },
    async (batch: StreamMessage[]) => {
      const topic = batch[0]?.topic as Topic | undefined;
      if (!topic) return;
      const table = TOPIC_TABLES[topic];
      // A message holds one record (push) or a player request's batch (hold).
      const rows = batch.flatMap((m) => recordsOf(m.value));
      deps.metrics?.in.inc({ topic }, rows.length);
      const bad = rows.findIndex((r) => !isRow(r));
      if (bad >= 0) throw new AppError('BAD_USER_INPUT', `record ${bad} of the batch is not a record`);
      // Bounded inserts: a backlog of held batches (100s of records per message) is split.
      for (let i = 0; i < rows.length; i += maxRows) await insert(table, topic, rows.slice(i, i + maxRows) as Record<string, unknown>[]);
    },
  );

  const deadLetters = await deps.stream.subscribe(DEAD_LETTER_TOPIC, batching, async (batch) => {
    const rows = batch
      .map((m) => m.value as Partial<DeadLetter>)
      .map((d) => ({
        id: `${d.topic ?? '?'}:${d.group ?? '?'}:${d.position ?? '?'}`,
        topic: String(d.topic ?? ''),
        consumer_group: String(d.group ?? ''),
        position: String(d.position ?? ''),
        key: String(d.key ?? ''),
        value: JSON.stringify(d.value ?? null),
        error: String(d.error ?? ''),
        attempts: Number(d.attempts ?? 0),
        dead_lettered_at: new Date(Number(d.dead_lettered_at ?? Date.now())).toISOString(),
      }));
    for (const r of rows) deps.metrics?.deadLettered.inc({ topic: r.topic });
    await insert('dead_letters', DEAD_LETTER_TOPIC, rows);
  });

  const subs: Subscription[] = [telemetry, deadLetters];
  return {
    async close() {
      closed = true;
      await Promise.all(subs.map((s) => s.close()));
    },
    async check() {
      if (closed || !subs.every((s) => s.alive())) throw new AppError('UNAVAILABLE', 'the telemetry consumer is not running');
    },
  };
}
