/**
 * Scaled EventStream: Kafka through kafkajs.
 *
 * - One idempotent producer, connected on first publish. Values travel as JSON text, keys as
 *   strings, timestamps as the producer-side time when the message has none. Messages with the
 *   same key land on the same partition (default murmur2 partitioner), so per-key order holds.
 * - Topics are created when missing (admin createTopics, `numPartitions` default 3).
 * - `subscribe` starts one kafkajs consumer per call, in the given group, from the earliest
 *   offset when the group has no committed offset. Batches from kafkajs are handed to the
 *   handler in chunks of `maxBatchSize`; a chunk's offsets are resolved and committed only after
 *   the handler resolves. A handler that throws makes kafkajs retry from the last resolved offset
 *   with its backoff, then restart the consumer: at-least-once, never a skipped message.
 *   `maxWaitMs` is the fetch long-poll wait (the broker answers as soon as data exists).
 * - A value that is not JSON (written by another producer) is handed over as its raw text.
 * - Errors reaching callers are AppError('UNAVAILABLE') that never name the engine.
 */
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type KafkaMessage, type Producer, type SASLOptions } from 'kafkajs';
import { AppError } from '@pylon/kit/errors';
import type { Logger } from '@pylon/kit/logger';
import type { EventStream, StreamMessage, Subscription } from '@pylon/kit/ports/stream';

export interface KafkaStreamOptions {
  brokers: string[];
  clientId: string;
  ssl?: boolean;
  sasl?: SASLOptions;
  /** Partitions of topics this adapter creates. Default 3. */
  numPartitions?: number;
  /** Replication factor of topics this adapter creates. Default: the broker's default. */
  replicationFactor?: number;
  /** How long a publish or ping may take before it rejects with UNAVAILABLE. Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** TCP connection timeout. Default 3 000 ms. */
  connectionTimeoutMs?: number;
  /** Receives kafkajs' own log lines (warn and above) and consumer crashes. */
  logger?: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
}

const DEFAULT_MAX_BATCH = 500;
const DEFAULT_MAX_WAIT_MS = 500;

/** Marks a handler failure as retriable for kafkajs (a TypeError would otherwise stop the consumer for good). */
class StreamHandlerError extends Error {
  readonly retriable = true;
  constructor(readonly handlerError: unknown) {
    super(`stream handler failed: ${handlerError instanceof Error ? handlerError.message : String(handlerError)}`);
    this.name = 'StreamHandlerError';
  }
}

function unavailable(message: string, cause?: unknown): AppError {
  if (cause instanceof AppError) return cause;
  const e = new AppError('UNAVAILABLE', message);
  if (cause !== undefined) e.cause = cause;
  return e;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return p;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new AppError('UNAVAILABLE', `${what} timed out`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

function decode(m: KafkaMessage): StreamMessage {
  let value: unknown = null;
  if (m.value) {
    const text = m.value.toString('utf8');
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  const out: StreamMessage = { value, timestamp: Number(m.timestamp) };
  if (m.key) out.key = m.key.toString('utf8');
  return out;
}

function encodeValue(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value ?? null);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new AppError('BAD_USER_INPUT', 'message value is not JSON-serialisable', { field: 'value' });
  return json;
}

export function createKafkaStream(opts: KafkaStreamOptions): EventStream {
  const log = opts.logger;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
  const numPartitions = opts.numPartitions ?? 3;

  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    ...(opts.ssl !== undefined ? { ssl: opts.ssl } : {}),
    ...(opts.sasl ? { sasl: opts.sasl } : {}),
    connectionTimeout: opts.connectionTimeoutMs ?? 3_000,
    // Bounded retries (about 3 s against a dead broker) so failures surface and close is quick.
    retry: { initialRetryTime: 200, maxRetryTime: 2_000, retries: 4 },
    logLevel: logLevel.WARN,
    ...(log
      ? {
          logCreator: () => (entry) => {
            const { message, ...extra } = entry.log;
            // Retries are bounded on purpose (see `retry` above); delivery is at-least-once anyway.
            if (message.startsWith('Limiting retries for the idempotent producer')) return;
            const fields = { ...extra, namespace: entry.namespace };
            if (entry.level <= logLevel.ERROR) log.error(fields, message);
            else if (entry.level === logLevel.WARN) log.warn(fields, message);
            else if (entry.level === logLevel.INFO) log.info(fields, message);
            else log.debug(fields, message);
          },
        }
      : {}),
  });

  const producer: Producer = kafka.producer({
    idempotent: true,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const admin: Admin = kafka.admin();
  const consumers = new Set<Consumer>();
  const topicsReady = new Map<string, Promise<void>>();
  let producerReady: Promise<void> | null = null;
  let adminReady: Promise<void> | null = null;
  let closed = false;

  function connectProducer(): Promise<void> {
    if (!producerReady) {
      producerReady = producer.connect().catch((e: unknown) => {
        producerReady = null;
        throw e;
      });
    }
    return producerReady;
  }

  function connectAdmin(): Promise<void> {
    if (!adminReady) {
      adminReady = admin.connect().catch((e: unknown) => {
        adminReady = null;
        throw e;
      });
    }
    return adminReady;
  }

  /**
   * Creates the topic when missing. A failure (no broker, or no right to create topics where
   * they are provisioned by other means) is logged and retried on next use; it does not fail the
   * caller, whose own request reports a topic that really is missing.
   */
  function ensureTopic(topic: string): Promise<void> {
    let ready = topicsReady.get(topic);
    if (!ready) {
      ready = (async () => {
        await connectAdmin();
        await admin.createTopics({
          waitForLeaders: true,
          topics: [{ topic, numPartitions, ...(opts.replicationFactor ? { replicationFactor: opts.replicationFactor } : {}) }],
        });
      })().catch((e: unknown) => {
        topicsReady.delete(topic);
        log?.warn({ err: e, topic }, 'could not create stream topic');
      });
      topicsReady.set(topic, ready);
    }
    return ready;
  }

  function checkTopic(topic: string): void {
    if (typeof topic !== 'string' || !/^[A-Za-z0-9._-]{1,249}$/.test(topic)) {
      throw new AppError('BAD_USER_INPUT', 'topic must be 1-249 characters of A-Z a-z 0-9 . _ -', { field: 'topic' });
    }
  }

  return {
    async publish(topic, messages) {
      if (closed) throw new AppError('UNAVAILABLE', 'event stream is closed');
      checkTopic(topic);
      if (messages.length === 0) return;
      const now = Date.now();
      const encoded = messages.map((m) => ({
        key: m.key ?? null,
        value: encodeValue(m.value),
        timestamp: String(m.timestamp ?? now),
      }));
      try {
        await withTimeout(
          (async () => {
            await Promise.all([connectProducer(), ensureTopic(topic)]);
            await producer.send({ topic, messages: encoded });
          })(),
          requestTimeoutMs,
          'publish',
        );
      } catch (e) {
        throw unavailable('event stream is unavailable', e);
      }
    },

    async subscribe(topic, options, handler): Promise<Subscription> {
      if (closed) throw new AppError('UNAVAILABLE', 'event stream is closed');
      checkTopic(topic);
      if (typeof options?.group !== 'string' || options.group.length === 0) {
        throw new AppError('BAD_USER_INPUT', 'group must be a non-empty string', { field: 'group' });
      }
      const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH;
      if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
        throw new AppError('BAD_USER_INPUT', 'maxBatchSize must be a positive integer', { field: 'maxBatchSize' });
      }
      const consumer = kafka.consumer({
        groupId: options.group,
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
        retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 8 },
      });
      consumer.on(consumer.events.CRASH, (event) => {
        log?.error({ err: event.payload.error, group: options.group, topic, restart: event.payload.restart }, 'stream consumer crashed');
      });
      try {
        await ensureTopic(topic);
        await consumer.connect();
        consumers.add(consumer);
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await consumer.run({
          autoCommit: true,
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
            const msgs = batch.messages;
            for (let i = 0; i < msgs.length; i += maxBatchSize) {
              if (!isRunning() || isStale()) return;
              const chunk = msgs.slice(i, i + maxBatchSize);
              try {
                await handler(chunk.map(decode));
              } catch (e) {
                throw new StreamHandlerError(e);
              }
              resolveOffset(chunk[chunk.length - 1]!.offset);
              await commitOffsetsIfNecessary();
              await heartbeat();
            }
          },
        });
      } catch (e) {
        consumers.delete(consumer);
        await consumer.disconnect().catch(() => undefined);
        throw unavailable('event stream is unavailable', e);
      }
      let stopped = false;
      return {
        async close() {
          if (stopped) return;
          stopped = true;
          consumers.delete(consumer);
          await consumer.disconnect();
        },
      };
    },

    async ping() {
      if (closed) throw new AppError('UNAVAILABLE', 'event stream is closed');
      try {
        await withTimeout(
          (async () => {
            await connectAdmin();
            await admin.describeCluster();
          })(),
          requestTimeoutMs,
          'ping',
        );
      } catch (e) {
        throw unavailable('event stream is unavailable', e);
      }
    },

    async close() {
      closed = true;
      const all = [...consumers];
      consumers.clear();
      await Promise.allSettled(all.map((c) => c.disconnect()));
      // Disconnect without waiting for a connection attempt still in progress (it may be retrying
      // against a dead broker); kafkajs stops using the connections once disconnected.
      const pending = [producerReady ? producer.disconnect() : undefined, adminReady ? admin.disconnect() : undefined];
      producerReady = null;
      adminReady = null;
      await Promise.allSettled(pending);
    },
  };
}
