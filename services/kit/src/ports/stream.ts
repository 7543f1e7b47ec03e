/**
 * Stream port: durable topics with consumer groups, for telemetry (pings, play logs, events,
 * impressions, audit). Embedded adapters: an in-process bus (stream.memory.ts) and the same bus
 * over an append-only LMDB log (stream.lmdb.ts, the default). Scaled adapter: Kafka through kafkajs.
 * Delivery is at-least-once: a batch counts as consumed only after its handler resolves;
 * a handler that throws sees the same messages again after a backoff.
 */
export interface StreamMessage {
  key?: string;
  /** JSON-serialisable payload. */
  value: unknown;
  /** Milliseconds since epoch, set by the producer side when absent. */
  timestamp?: number;
  /** The topic it was consumed from (set on delivery; ignored on publish). */
  topic?: string;
}

export interface DeadLetterOptions {
  /** Where messages that keep failing go (published as DeadLetter values). */
  topic: string;
  /**
   * Failed attempts of a batch (errors not marked transient) before its messages are retried one
   * at a time; a single message that fails this often goes to `topic` and is skipped.
   */
  maxAttempts: number;
}

/** What a dead-letter topic carries: the original message and why it was given up on. */
export interface DeadLetter {
  topic: string;
  group: string;
  /** Position in the original topic (partition:offset on Kafka). */
  position: string;
  key: string | null;
  /** The original value; the raw text when it was not JSON. */
  value: unknown;
  timestamp: number;
  error: string;
  attempts: number;
  dead_lettered_at: number;
}

export interface ConsumerOptions {
  /** Consumer group id; every group sees every message once. */
  group: string;
  /** Largest batch handed to the handler. */
  maxBatchSize?: number;
  /** How long a partial batch may wait before it is handed over. */
  maxWaitMs?: number;
  /** Without it a failing batch is retried forever (backoff capped). */
  deadLetter?: DeadLetterOptions;
}

/**
 * What a handler may do about the batch it holds. On Kafka a member that stops heartbeating for
 * the session timeout is evicted and its partitions go to another member; on Redis Streams an
 * entry idle for `claimIdleMs` is claimed by another member. Either way the batch is then handled
 * twice, with other batch boundaries.
 */
export interface BatchContext {
  /**
   * Keeps this member's hold on the batch alive (Kafka: a group heartbeat; Redis Streams: the
   * entries' idle time reset, only while this member still owns them). Call it between long store
   * calls. Rejects with a LeaseLostError once the batch belongs to another member: the handler
   * must stop before its next write; the adapter neither acknowledges nor commits the batch.
   */
  heartbeat(): Promise<void>;
}

/** The batch was handed to another member (rebalance, eviction, claim): stop, write nothing more. */
export class LeaseLostError extends Error {
  readonly leaseLost = true;
  constructor(message = 'the batch was handed to another member of the group', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LeaseLostError';
  }
}

export const isLeaseLost = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { leaseLost?: unknown }).leaseLost === true;

/** For adapters where one member holds a batch until it is done (in-process, embedded log). */
export const HELD_BATCH: BatchContext = { heartbeat: async () => undefined };

export interface Subscription {
  close(): Promise<void>;
  /** False once the consumer stopped for good (crashed, not restarting); /readyz reports it. */
  alive(): boolean;
}

export interface GroupLag {
  topic: string;
  group: string;
  /** Messages published but not yet consumed by the group. */
  lag: number;
}

export interface EventStream {
  publish(topic: string, messages: StreamMessage[]): Promise<void>;
  /**
   * One consumer for one or several topics, in one group. Each batch holds messages of one topic
   * (`message.topic` says which).
   */
  subscribe(
    topics: string | readonly string[],
    options: ConsumerOptions,
    handler: (batch: StreamMessage[], context: BatchContext) => Promise<void>,
  ): Promise<Subscription>;
  /** How far each group is behind, per topic (the groups this stream's consumers use). */
  lag(): Promise<GroupLag[]>;
  ping(): Promise<void>;
  /** Stops consumers after their current batch, then flushes producers. */
  close(): Promise<void>;
}

/**
 * A stream's methods as own properties that call `bus` (an adapter's class instance): callers
 * spread or wrap a stream, which would leave a class's prototype methods behind.
 */
export function streamMethodsOf(bus: EventStream): EventStream {
  return {
    publish: (topic, messages) => bus.publish(topic, messages),
    subscribe: (topics, options, handler) => bus.subscribe(topics, options, handler),
    lag: () => bus.lag(),
    ping: () => bus.ping(),
    close: () => bus.close(),
  };
}

/**
 * Marks an error as transient (the store is down, not the data bad): the stream retries it forever
 * with backoff and never dead-letters because of it.
 */
export class TransientError extends Error {
  readonly transient = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

export const isTransientError = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { transient?: unknown }).transient === true;
