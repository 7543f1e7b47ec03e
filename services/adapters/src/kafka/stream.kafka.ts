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
 *
 * The parts: stream.kafka-wire.ts (values, topic names, rebalance errors, timeouts),
 * stream.kafka-chunk.ts (a chunk in a handler's hands: heartbeats, retries, dead letters); this
 * file holds the clients, the consumers and the EventStream they offer.
 */
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type KafkaConfig, type Producer, type SASLOptions } from 'kafkajs';
import { AppError } from '@pylon/kit/errors';
import type { Logger } from '@pylon/kit/logger';
import { streamMethodsOf, type ConsumerOptions, type EventStream, type GroupLag, type StreamMessage, type Subscription } from '@pylon/kit/ports/stream';
import { ChunkRunner, type ChunkSettings } from './stream.kafka-chunk.js';
import { checkTopic, encodeValue, unavailable, withTimeout } from './stream.kafka-wire.js';

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
const DEFAULT_MAX_WAIT_MS = 500;

/** kafkajs' own log lines (warn and above) to the logger, when there is one. */
function logCreator(log: KafkaStreamOptions['logger']): Pick<KafkaConfig, 'logCreator'> {
  if (!log) return {};
  return {
    logCreator: () => (entry) => {
      const { message, ...extra } = entry.log;
      const fields = { ...extra, namespace: entry.namespace };
      if (entry.level <= logLevel.ERROR) log.error(fields, message);
      else if (entry.level === logLevel.WARN) log.warn(fields, message);
      else if (entry.level === logLevel.INFO) log.info(fields, message);
      else log.debug(fields, message);
    },
  };
}

/** A subscription's checked options: its topics, chunk size, dead letter and consumer role (its sorted topics). */
function checkSubscription(topics: string | readonly string[], options: ConsumerOptions) {
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
  return { names, maxBatchSize, role: [...names].sort().join(',') };
}

/** A kafkajs producer or admin client, connected on first use; a failed attempt is forgotten, so the next use tries again. */
class LazyConnection<C extends { connect(): Promise<void>; disconnect(): Promise<void> }> {
  private ready: Promise<void> | null = null;

  constructor(readonly client: C) {}

  connect(): Promise<void> {
    this.ready ??= this.client.connect().catch((e: unknown) => {
      this.ready = null;
      throw e;
    });
    return this.ready;
  }

  /** Disconnects if a connection was asked for, without waiting for an attempt still in progress. */
  async disconnect(): Promise<void> {
    const asked = this.ready !== null;
    this.ready = null;
    if (asked) await this.client.disconnect();
  }
}

/** The clients, the consumers of this process and what they read; `createKafkaStream` offers it as an EventStream. */
class KafkaBus {
  private readonly kafka: Kafka;
  private readonly producer: LazyConnection<Producer>;
  private readonly admin: LazyConnection<Admin>;
  private readonly consumers = new Set<Consumer>();
  /** Group -> topics its consumers read here: what lag() reports. */
  private readonly groupTopics = new Map<string, Set<string>>();
  /** Group -> the topic set its subscription here reads: one group per consumer role. */
  private readonly groupRoles = new Map<string, string>();
  private readonly topicsReady = new Map<string, Promise<void>>();
  private readonly requestTimeoutMs: number;
  private readonly numPartitions: number;
  private readonly sessionTimeout: number;
  private readonly rebalanceTimeout: number;
  private readonly heartbeatInterval: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  closed = false;

  constructor(private readonly opts: KafkaStreamOptions) {
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.numPartitions = opts.numPartitions ?? 3;
    this.sessionTimeout = opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    this.rebalanceTimeout = opts.rebalanceTimeoutMs ?? this.sessionTimeout;
    this.heartbeatInterval = opts.heartbeatIntervalMs ?? 3_000;
    this.retryBaseMs = opts.retryBaseMs ?? 200;
    this.retryMaxMs = opts.retryMaxMs ?? 5_000;
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      ...(opts.ssl !== undefined ? { ssl: opts.ssl } : {}),
      ...(opts.sasl ? { sasl: opts.sasl } : {}),
      connectionTimeout: opts.connectionTimeoutMs ?? 3_000,
      // Bounded retries (about 3 s against a dead broker) so failures surface and close is quick.
      retry: { initialRetryTime: 200, maxRetryTime: 2_000, retries: 4 },
      logLevel: logLevel.WARN,
      ...logCreator(opts.logger),
    });
    this.producer = new LazyConnection(
      this.kafka.producer({
        idempotent: false,
        retry: { initialRetryTime: 100, maxRetryTime: 3_000, retries: 10 },
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      }),
    );
    this.admin = new LazyConnection(this.kafka.admin());
  }

  /**
   * Creates the topic when missing. A failure (no broker, or no right to create topics where
   * they are provisioned by other means) is logged and retried on next use; it does not fail the
   * caller, whose own request reports a topic that really is missing.
   */
  private ensureTopic(topic: string): Promise<void> {
    let ready = this.topicsReady.get(topic);
    if (!ready) {
      const { replicationFactor } = this.opts;
      ready = (async () => {
        await this.admin.connect();
        await this.admin.client.createTopics({
          waitForLeaders: true,
          topics: [{ topic, numPartitions: this.numPartitions, ...(replicationFactor ? { replicationFactor } : {}) }],
        });
      })().catch((e: unknown) => {
        this.topicsReady.delete(topic);
        this.opts.logger?.warn({ err: e, topic }, 'could not create stream topic');
      });
      this.topicsReady.set(topic, ready);
    }
    return ready;
  }

  /** Runs `work` within the request timeout; any failure reaches the caller as UNAVAILABLE. */
  private async request<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(work(), this.requestTimeoutMs, what);
    } catch (e) {
      throw unavailable('event stream is unavailable', e);
    }
  }

  async publish(topic: string, messages: StreamMessage[]): Promise<void> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'event stream is closed');
    checkTopic(topic);
    if (messages.length === 0) return;
    const now = Date.now();
    const encoded = messages.map((m) => ({
      key: m.key ?? null,
      value: encodeValue(m.value),
      timestamp: String(m.timestamp ?? now),
    }));
    await this.request('publish', async () => {
      await Promise.all([this.producer.connect(), this.ensureTopic(topic)]);
      await this.producer.client.send({ topic, messages: encoded });
    });
  }

  async subscribe(topics: string | readonly string[], options: ConsumerOptions, handler: ChunkSettings['handler']): Promise<Subscription> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'event stream is closed');
    const { names, maxBatchSize, role } = checkSubscription(topics, options);
    const held = this.groupRoles.get(options.group);
    if (held !== undefined && held !== role) {
      throw new AppError('BAD_USER_INPUT', `group ${options.group} already reads other topics here (${held}); use one group per consumer role`, {
        field: 'group',
      });
    }
    this.groupRoles.set(options.group, role);
    const consumer = this.consumer(options);
    const state = { stopped: false, crashed: false };
    consumer.on(consumer.events.CRASH, (event) => {
      if (!event.payload.restart) state.crashed = true;
      this.opts.logger?.error({ err: event.payload.error, group: options.group, topics: names, restart: event.payload.restart }, 'stream consumer crashed');
    });
    const chunks = new ChunkRunner({
      group: options.group,
      handler,
      deadLetter: options.deadLetter,
      heartbeatIntervalMs: this.heartbeatInterval,
      retryBaseMs: this.retryBaseMs,
      retryMaxMs: this.retryMaxMs,
      log: this.opts.logger,
      publish: (topic, messages) => this.publish(topic, messages),
    });
    try {
      await this.run(consumer, names, maxBatchSize, chunks, () => state.stopped);
    } catch (e) {
      this.consumers.delete(consumer);
      if (held === undefined) this.groupRoles.delete(options.group);
      await consumer.disconnect().catch(() => undefined);
      throw unavailable('event stream is unavailable', e);
    }
    const mine = this.groupTopics.get(options.group) ?? new Set<string>();
    for (const n of names) mine.add(n);
    this.groupTopics.set(options.group, mine);
    return {
      alive: () => !state.stopped && !state.crashed && !this.closed,
      close: async () => {
        if (state.stopped) return;
        state.stopped = true;
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  /** A kafkajs consumer of `options.group`, with this stream's session, fetch and retry settings. */
  private consumer(options: ConsumerOptions): Consumer {
    return this.kafka.consumer({
      groupId: options.group,
      sessionTimeout: this.sessionTimeout,
      rebalanceTimeout: this.rebalanceTimeout,
      heartbeatInterval: this.heartbeatInterval,
      allowAutoTopicCreation: false,
      minBytes: this.opts.minBytes ?? 65_536,
      maxWaitTimeInMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
      retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 8 },
    });
  }

  /** Connects and starts the consumer: each fetched batch in chunks of `maxBatchSize`, each resolved and committed after its handler. */
  private async run(consumer: Consumer, names: string[], maxBatchSize: number, chunks: ChunkRunner, stopped: () => boolean): Promise<void> {
    await Promise.all(names.map((n) => this.ensureTopic(n)));
    await consumer.connect();
    this.consumers.add(consumer);
    await consumer.subscribe({ topics: names, fromBeginning: true });
    await consumer.run({
      autoCommit: true,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
        const alive = () => !stopped() && isRunning() && !isStale();
        const msgs = batch.messages;
        for (let i = 0; i < msgs.length; i += maxBatchSize) {
          if (!alive()) return;
          const chunk = msgs.slice(i, i + maxBatchSize);
          if (!(await chunks.handle(chunk, batch.topic, batch.partition, alive, heartbeat))) return;
          resolveOffset(chunk[chunk.length - 1]!.offset);
          await commitOffsetsIfNecessary();
          await heartbeat();
        }
      },
    });
  }

  async lag(): Promise<GroupLag[]> {
    const out: GroupLag[] = [];
    await this.request('lag', async () => {
      await this.admin.connect();
      for (const [group, names] of this.groupTopics) {
        const committed = await this.admin.client.fetchOffsets({ groupId: group, topics: [...names] });
        for (const t of committed) {
          const ends = await this.admin.client.fetchTopicOffsets(t.topic);
          let lag = 0;
          for (const p of t.partitions) {
            const high = Number(ends.find((e) => e.partition === p.partition)?.high ?? 0);
            const at = Number(p.offset);
            lag += Math.max(0, high - (at < 0 ? Number(ends.find((e) => e.partition === p.partition)?.low ?? 0) : at));
          }
          out.push({ topic: t.topic, group, lag });
        }
      }
    });
    return out;
  }

  async ping(): Promise<void> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'event stream is closed');
    await this.request('ping', async () => {
      await this.admin.connect();
      await this.admin.client.describeCluster();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.consumers];
    this.consumers.clear();
    await Promise.allSettled(all.map((c) => c.disconnect()));
    // Disconnect without waiting for a connection attempt still in progress (it may be retrying
    // against a dead broker); kafkajs stops using the connections once disconnected.
    await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect()]);
  }
}

export function createKafkaStream(opts: KafkaStreamOptions): EventStream {
  return streamMethodsOf(new KafkaBus(opts));
}
