/**
 * Scaled EventStream: Kafka through kafkajs.
 *
 * Checked against kafkajs 2.2.4's source (node_modules/kafkajs/src):
 * - One producer, NOT idempotent: with idempotence kafkajs wants unbounded retries
 *   (producer/index.js:43-54) and a bounded one can wedge a partition on a sequence error after a
 *   leader change. Duplicates a retry may cause collapse in the store by event id. Retries are
 *   bounded by the producer's retry settings inside the outer `requestTimeoutMs`. Values travel as
 *   JSON text, keys as strings; same key, same partition (murmur2), so per-key order holds.
 * - Topics are created when missing (admin createTopics, `numPartitions` default 3,
 *   `replicationFactor` when given).
 * - `subscribe` starts ONE kafkajs consumer per call for all its topics: the group leader assigns
 *   only the topics it subscribed itself (consumer/consumerGroup.js:205-220, `topics:
 *   topicsSubscribed`), so one consumer per topic in a shared group would leave topics unread.
 * - Fetches wait for `minBytes` (default 64 KiB) or `maxWaitMs`, whichever first (kafkajs's own
 *   default minBytes is 1: one tiny fetch, one tiny insert). A fetched batch is handed over in
 *   chunks of `maxBatchSize`; a chunk's offsets are resolved and committed only after the handler
 *   resolved.
 * - kafkajs has no background heartbeat (it heartbeats between fetches and when told). While a
 *   chunk's handler runs this adapter heartbeats every `heartbeatIntervalMs`, and the handler's
 *   `context.heartbeat()` heartbeats between its store calls. The session timeout (default 630 s)
 *   outlasts the longest store call (ClickHouse's request timeout, 600 s), so a member stalled in
 *   one call is not evicted meanwhile; the rebalance timeout is as long, so a rebalance waits for a
 *   member to finish its call and rejoin instead of handing its partition over mid-call.
 * - A rebalance error from a heartbeat (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION,
 *   UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) means the partition may be handed to another member:
 *   the handler's next heartbeat rejects with LeaseLostError, the chunk is neither resolved nor
 *   committed, and the error is rethrown to kafkajs, which rejoins. It is never swallowed.
 * - One group per consumer role: a second subscription of this stream in a group with other topics
 *   is refused (the group leader would assign only its own topics: partitions nobody reads).
 * - A failing handler is retried in place with backoff (heartbeats continue), so a bad message
 *   no longer loops through crash, rejoin and rebalance. Transient errors retry forever; with
 *   `deadLetter`, other errors after `maxAttempts` isolate the chunk message by message and a
 *   message that still fails is published to the dead-letter topic and its offset resolved.
 * - A value that is not JSON (written by another producer) is handed over as its raw text.
 * - A consumer that crashed without restarting (CRASH event, `restart: false`) reports
 *   `alive() === false`, which /readyz shows.
 * - Errors reaching callers are AppError('UNAVAILABLE') that never name the engine.
 */
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type KafkaMessage, type Producer, type SASLOptions } from 'kafkajs';
import { AppError } from '@pylon/kit/errors';
import type { Logger } from '@pylon/kit/logger';
import {
  isLeaseLost,
  isTransientError,
  LeaseLostError,
  type BatchContext,
  type DeadLetter,
  type EventStream,
  type GroupLag,
  type StreamMessage,
  type Subscription,
} from '@pylon/kit/ports/stream';

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
  /** Bytes a fetch waits for (up to maxWaitMs) before answering. Default 65 536. */
  minBytes?: number;
  /**
   * A member that sends no heartbeat this long is evicted. Must outlast the longest store call a
   * handler makes between heartbeats (ClickHouse's request timeout, 600 s) and stay within the
   * broker's group.max.session.timeout.ms (Kafka's default: 30 min). Default 630 000 ms.
   */
  sessionTimeoutMs?: number;
  /** How long a rebalance waits for members to rejoin. Default: the session timeout. */
  rebalanceTimeoutMs?: number;
  /** Heartbeats while a handler runs. Default 3 000 ms. */
  heartbeatIntervalMs?: number;
  /** First and largest delay of the in-place handler retry. Defaults 200 ms and 5 000 ms. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

const DEFAULT_MAX_BATCH = 500;
export const DEFAULT_SESSION_TIMEOUT_MS = 630_000;

/** kafkajs protocol errors of a heartbeat or commit that mean the member lost (or may lose) its partitions. */
const REBALANCE_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID', 'NOT_COORDINATOR']);
const isRebalance = (e: unknown) => typeof e === 'object' && e !== null && REBALANCE_ERRORS.has(String((e as { type?: unknown }).type));
const DEFAULT_MAX_WAIT_MS = 500;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

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

function decode(m: KafkaMessage, topic: string): StreamMessage {
  let value: unknown = null;
  if (m.value) {
    const text = m.value.toString('utf8');
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  const out: StreamMessage = { value, timestamp: Number(m.timestamp), topic };
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
    idempotent: false,
    retry: { initialRetryTime: 100, maxRetryTime: 3_000, retries: 10 },
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const admin: Admin = kafka.admin();
  const consumers = new Set<Consumer>();
  /** Group -> topics its consumers read here: what lag() reports. */
  const groupTopics = new Map<string, Set<string>>();
  /** Group -> the topic set its subscription here reads: one group per consumer role. */
  const groupRoles = new Map<string, string>();
  const sessionTimeout = opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  const rebalanceTimeout = opts.rebalanceTimeoutMs ?? sessionTimeout;
  const heartbeatInterval = opts.heartbeatIntervalMs ?? 3_000;
  const retryBaseMs = opts.retryBaseMs ?? 200;
  const retryMaxMs = opts.retryMaxMs ?? 5_000;
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

  const stream: EventStream = {
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

    async subscribe(topics, options, handler): Promise<Subscription> {
      if (closed) throw new AppError('UNAVAILABLE', 'event stream is closed');
      const names = [...new Set(typeof topics === 'string' ? [topics] : topics)];
      if (names.length === 0) throw new AppError('BAD_USER_INPUT', 'at least one topic is needed', { field: 'topic' });
      names.forEach(checkTopic);
      if (typeof options?.group !== 'string' || options.group.length === 0) {
        throw new AppError('BAD_USER_INPUT', 'group must be a non-empty string', { field: 'group' });
      }
      const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH;
      if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
        throw new AppError('BAD_USER_INPUT', 'maxBatchSize must be a positive integer', { field: 'maxBatchSize' });
      }
      const dl = options.deadLetter;
      if (dl) {
        checkTopic(dl.topic);
        if (!Number.isInteger(dl.maxAttempts) || dl.maxAttempts < 1)
          throw new AppError('BAD_USER_INPUT', 'deadLetter.maxAttempts must be a positive integer', { field: 'deadLetter.maxAttempts' });
        if (names.includes(dl.topic)) throw new AppError('BAD_USER_INPUT', 'a topic cannot be its own dead letter', { field: 'deadLetter.topic' });
      }
      const role = [...names].sort().join(',');
      const held = groupRoles.get(options.group);
      if (held !== undefined && held !== role) {
        throw new AppError('BAD_USER_INPUT', `group ${options.group} already reads other topics here (${held}); use one group per consumer role`, {
          field: 'group',
        });
      }
      groupRoles.set(options.group, role);
      const consumer = kafka.consumer({
        groupId: options.group,
        sessionTimeout,
        rebalanceTimeout,
        heartbeatInterval,
        allowAutoTopicCreation: false,
        minBytes: opts.minBytes ?? 65_536,
        maxWaitTimeInMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
        retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 8 },
      });
      let stopped = false;
      let crashed = false;
      consumer.on(consumer.events.CRASH, (event) => {
        if (!event.payload.restart) crashed = true;
        log?.error({ err: event.payload.error, group: options.group, topics: names, restart: event.payload.restart }, 'stream consumer crashed');
      });

      /**
       * The hold of one chunk: heartbeats in the background while the handler runs and on the
       * handler's `heartbeat()`. The first rebalance error is kept (`lost`); from then on
       * `heartbeat()` rejects with LeaseLostError and the chunk is abandoned.
       */
      function hold(alive: () => boolean, heartbeat: () => Promise<void>) {
        let lost: unknown;
        const beat = async () => {
          if (lost !== undefined) return;
          try {
            await heartbeat();
          } catch (e) {
            if (isRebalance(e)) lost = e;
            else throw e;
          }
        };
        const timer = setInterval(() => void beat().catch(() => undefined), heartbeatInterval);
        timer.unref();
        const context: BatchContext = {
          async heartbeat() {
            await beat().catch(() => undefined); // a broker hiccup: the session outlasts it
            if (lost !== undefined || !alive()) throw new LeaseLostError('the partition is being handed to another member', { cause: lost });
          },
        };
        return { context, lost: () => lost, beat, release: () => clearInterval(timer) };
      }

      /**
       * Runs the handler until it succeeds; false when the consumer stops meanwhile. Dead-letters
       * when told. Throws kafkajs's rebalance error when the partition is being handed over.
       */
      async function handle(chunk: KafkaMessage[], topic: string, partition: number, alive: () => boolean, heartbeat: () => Promise<void>): Promise<boolean> {
        const held = hold(alive, heartbeat);
        try {
          return await attempts(chunk, topic, partition, alive, heartbeat, held);
        } finally {
          held.release();
        }
      }

      async function attempts(
        chunk: KafkaMessage[],
        topic: string,
        partition: number,
        alive: () => boolean,
        heartbeat: () => Promise<void>,
        held: ReturnType<typeof hold>,
      ): Promise<boolean> {
        const abandon = () => {
          if (held.lost() !== undefined) throw held.lost();
          return false;
        };
        for (let attempt = 1; ; attempt++) {
          try {
            await handler(
              chunk.map((m) => decode(m, topic)),
              held.context,
            );
            if (held.lost() !== undefined) return abandon();
            return true;
          } catch (e) {
            if (isLeaseLost(e) || held.lost() !== undefined) return abandon();
            if (dl && !isTransientError(e) && attempt >= dl.maxAttempts) {
              if (chunk.length > 1) {
                // Find the culprit: each message alone, each with its own attempts.
                for (const m of chunk) if (!(await handle([m], topic, partition, alive, heartbeat))) return false;
                return true;
              }
              const m = chunk[0]!;
              const d = decode(m, topic);
              const letter: DeadLetter = {
                topic,
                group: options.group,
                position: `${partition}:${m.offset}`,
                key: d.key ?? null,
                value: d.value,
                timestamp: d.timestamp ?? Date.now(),
                error: e instanceof Error ? e.message.slice(0, 2000) : String(e).slice(0, 2000),
                attempts: attempt,
                dead_lettered_at: Date.now(),
              };
              await stream.publish(dl.topic, [{ ...(d.key !== undefined ? { key: d.key } : {}), value: letter }]);
              return true;
            }
            log?.warn({ err: e, group: options.group, topic, attempt }, 'stream handler failed; retrying in place');
            // Back off in steps, heartbeating, so the group keeps this member through a long outage;
            // a rebalance meanwhile ends the retries here (the partition may go to another member).
            let left = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(attempt - 1, 20));
            while (left > 0) {
              if (!alive()) return false;
              const step = Math.min(left, 1_000);
              await sleep(step);
              left -= step;
              await held.beat().catch(() => undefined);
              if (held.lost() !== undefined) return abandon();
            }
            if (!alive()) return false;
          }
        }
      }

      try {
        await Promise.all(names.map(ensureTopic));
        await consumer.connect();
        consumers.add(consumer);
        await consumer.subscribe({ topics: names, fromBeginning: true });
        await consumer.run({
          autoCommit: true,
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
            const alive = () => !stopped && isRunning() && !isStale();
            const msgs = batch.messages;
            for (let i = 0; i < msgs.length; i += maxBatchSize) {
              if (!alive()) return;
              const chunk = msgs.slice(i, i + maxBatchSize);
              if (!(await handle(chunk, batch.topic, batch.partition, alive, heartbeat))) return;
              resolveOffset(chunk[chunk.length - 1]!.offset);
              await commitOffsetsIfNecessary();
              await heartbeat();
            }
          },
        });
      } catch (e) {
        consumers.delete(consumer);
        if (held === undefined) groupRoles.delete(options.group);
        await consumer.disconnect().catch(() => undefined);
        throw unavailable('event stream is unavailable', e);
      }
      const mine = groupTopics.get(options.group) ?? new Set<string>();
      for (const n of names) mine.add(n);
      groupTopics.set(options.group, mine);
      return {
        alive: () => !stopped && !crashed && !closed,
        async close() {
          if (stopped) return;
          stopped = true;
          consumers.delete(consumer);
          await consumer.disconnect();
        },
      };
    },

    async lag() {
      const out: GroupLag[] = [];
      try {
        await withTimeout(
          (async () => {
            await connectAdmin();
            for (const [group, names] of groupTopics) {
              const committed = await admin.fetchOffsets({ groupId: group, topics: [...names] });
              for (const t of committed) {
                const ends = await admin.fetchTopicOffsets(t.topic);
                let lag = 0;
                for (const p of t.partitions) {
                  const high = Number(ends.find((e) => e.partition === p.partition)?.high ?? 0);
                  const at = Number(p.offset);
                  lag += Math.max(0, high - (at < 0 ? Number(ends.find((e) => e.partition === p.partition)?.low ?? 0) : at));
                }
                out.push({ topic: t.topic, group, lag });
              }
            }
          })(),
          requestTimeoutMs,
          'lag',
        );
      } catch (e) {
        throw unavailable('event stream is unavailable', e);
      }
      return out;
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
  return stream;
}
