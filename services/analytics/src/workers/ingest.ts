/**
 * The analytics ingest: ONE consumer over every telemetry topic, inserting each batch into its
 * topic's table, plus a second consumer of the dead-letter topic into `dead_letters`.
 *
 * - One consumer group per consumer role (`ingestGroups`): on Kafka the group's leader assigns
 *   only the topics it subscribed itself and a member drops topics it did not subscribe to
 *   (kafkajs consumerGroup.js), so two consumers of different topics in one group leave
 *   partitions unread (test/ingest-groups.test.ts runs kafkajs's own assignment).
 *
 * - Batches are large: up to `maxBatchSize` messages or `maxWaitMs`, whichever first. A message
 *   carries one record or a player request's batch (`recordsOf`); inserts hold at most
 *   `maxRowsPerInsert` rows.
 * - Before every store call the handler renews its hold on the batch (`hold.heartbeat()`: a Kafka
 *   heartbeat, a Redis Streams claim renewal); once another member owns the batch it stops there.
 * - Offsets advance only after the insert succeeded (at-least-once delivery), and the inserts are
 *   idempotent (exactly-once.ts): records repeated in the batch or already stored are dropped,
 *   and each insert carries a deduplication token, so a redelivered batch or a player's retried
 *   request is counted once in the raw tables and in the rollups. Impressions into days already
 *   over then invalidate those days' visitor counts (visitor-days.ts).
 * - Store down or busy: the failure is transient (the adapter marks overload and network errors,
 *   or the store does not answer a ping), so the stream backs off and retries forever; nothing is
 *   skipped, nothing dead-lettered; the consumer resumes where it stopped once the store answers.
 * - Store up but refusing a batch: after `maxAttempts` the stream retries its messages one by one
 *   and moves each that still fails to the dead-letter topic (replay: dead-letters.ts).
 * - `check()` fails once a consumer stopped for good: /readyz reports the process not ready.
 */
import {
  AppError,
  DEAD_LETTER_TOPIC,
  TOPIC_TABLES,
  TransientError,
  isTransientError,
  recordsOf,
  type AnalyticsStore,
  type BatchContext,
  type DeadLetter,
  type EventStream,
  type Logger,
  type SqlParams,
  type StreamMessage,
  type Subscription,
  type TelemetryMetrics,
  type Topic,
} from '@pylon/kit';
import { exactlyOnce } from './exactly-once.js';
import { repairRollups } from './rollup-repair.js';
import { markLateVisitorDays } from './visitor-days.js';

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
  /** The telemetry consumer's group; the dead-letter consumer's is derived from it (`ingestGroups`). */
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

/**
 * The group of each consumer role: one group per distinct subscription. The telemetry consumer
 * keeps the group it always had (its committed offsets stay valid); the dead-letter consumer gets
 * its own, which starts at the beginning of the dead-letter topic once (dead_letters rows have a
 * stable id: topic, group and position, so rows read again collapse).
 */
export function ingestGroups(base = 'analytics-ingest'): { telemetry: string; deadLetters: string } {
  return { telemetry: base, deadLetters: `${base}.dead-letters` };
}

export async function startIngest(deps: IngestOptions): Promise<Ingest> {
  const groups = ingestGroups(deps.group);
  const batching = { maxBatchSize: deps.maxBatchSize ?? 5000, maxWaitMs: deps.maxWaitMs ?? 500 };
  const maxRows = deps.maxRowsPerInsert ?? 50_000;
  const once = exactlyOnce(maxRows);
  let closed = false;

  /**
   * Runs a store call, telling a store that is down or busy (transient: wait) from one that refuses
   * the rows. The adapter decides what is transient (ClickHouse's overload codes: too many parts,
   * memory limit, too many queries, timeouts); the ping only tells a store that is down.
   */
  async function guarded<T>(hold: BatchContext, topic: string, rows: number, call: () => Promise<T>): Promise<T> {
    // Before every store call: keeps this member's hold on the batch, or stops here (LeaseLostError)
    // once another member owns it, so a member that stalled past its lease writes nothing more.
    await hold.heartbeat();
    try {
      return await call();
    } catch (e) {
      if (isTransientError(e)) {
        deps.logger.warn({ err: e, topic, rows }, 'analytics store busy; the ingest backs off and retries');
        throw e;
      }
      const up = await deps.analytics.ping().then(
        () => true,
        () => false,
      );
      if (!up) {
        deps.logger.warn({ topic, rows }, 'analytics store unavailable; the ingest pauses and retries');
        throw new TransientError('analytics store unavailable', { cause: e });
      }
      deps.logger.warn({ err: e, topic, rows }, 'analytics store refused a batch; it is retried, then dead-lettered');
      throw e;
    }
  }

  async function insert(hold: BatchContext, table: string, topic: string, rows: Record<string, unknown>[], token?: string): Promise<void> {
    await guarded(hold, topic, rows.length, () => deps.analytics.insert(table, rows, token === undefined ? undefined : { deduplicationToken: token }));
    deps.metrics?.out.inc({ table }, rows.length);
  }

  const telemetry = await deps.stream.subscribe(
    Object.keys(TOPIC_TABLES),
    { ...batching, group: groups.telemetry, deadLetter: { topic: DEAD_LETTER_TOPIC, maxAttempts: deps.maxAttempts ?? 5 } },
    async (batch: StreamMessage[], hold: BatchContext) => {
      const topic = batch[0]?.topic as Topic | undefined;
      if (!topic) return;
      const table = TOPIC_TABLES[topic];
      // A message holds one record (push) or a player request's batch (hold).
      const rows = batch.flatMap((m) => recordsOf(m.value));
      deps.metrics?.in.inc({ topic }, rows.length);
      const bad = rows.findIndex((r) => !isRow(r));
      if (bad >= 0) throw new AppError('BAD_USER_INPUT', `record ${bad} of the batch is not a record`);
      // Bounded inserts (a backlog of held batches, 100s of records per message, is split), each
      // without the records already stored; the lookup of those fails like an insert does.
      const records = rows as Record<string, unknown>[];
      const lookups = { query: <T>(sql: string, params?: SqlParams) => guarded(hold, topic, records.length, () => deps.analytics.query<T>(sql, params)) };
      const r = await once.insert(lookups, table, records, (chunk, token) => insert(hold, table, topic, chunk, token));
      const dropped = r.repeated + r.stored.length;
      if (dropped > 0) {
        deps.metrics?.duplicates.inc({ table }, dropped);
        deps.logger.info({ table, repeated: r.repeated, stored: r.stored.length }, 'telemetry delivered again was dropped: stored once already');
      }
      // A redelivery may follow an insert that stopped between the raw part and the rollups' parts.
      if (r.stored.length > 0) {
        await hold.heartbeat();
        await repairRollups(deps.analytics, table, r.stored).catch((e: unknown) =>
          deps.logger.warn({ err: e, table }, 'the rollups could not be checked against the raw table after a redelivery'),
        );
      }
      // Visitors into days already over: their day counts are invalid from now on (visitor-days.ts),
      // marked again now that the visitor rows are stored. Fails like an insert: the batch is retried.
      if (table === 'impressions') await guarded(hold, topic, records.length, () => markLateVisitorDays(deps.analytics, records));
    },
  );

  const deadLetters = await deps.stream.subscribe(DEAD_LETTER_TOPIC, { ...batching, group: groups.deadLetters }, async (batch, hold) => {
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
    await insert(hold, 'dead_letters', DEAD_LETTER_TOPIC, rows);
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
