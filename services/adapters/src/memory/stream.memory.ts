/**
 * Embedded EventStream: an in-process bus with one bounded append log per topic.
 *
 * - Backpressure, never silent drop: a topic retains every message that some consumer group
 *   (or, before any group exists, a future group) has not consumed yet. When it retains
 *   `maxBuffered` messages, `publish` waits, in arrival order, until consumers make room; after
 *   `publishTimeoutMs` it rejects with AppError('UNAVAILABLE') (messages of that call already
 *   appended stay published: `details.published` says how many).
 * - Consumer groups: each group has its own offset. A new group starts at the earliest retained
 *   message. A group outlives its subscriptions (like committed offsets in Kafka): subscribing
 *   again resumes where it stopped, and the group keeps holding retention meanwhile.
 * - Several subscriptions to the same group and topic share the group: batches go to them in
 *   turn (round robin), one batch in flight per group at a time, so per-topic order and
 *   at-least-once hold; it behaves like failover, not like parallelism.
 * - A batch counts as consumed only after its handler resolves. A handler that throws sees the
 *   same messages again after an exponential backoff (capped at `retryMaxMs`).
 * - With `deadLetter`, a batch that failed `maxAttempts` times (errors not marked transient) is
 *   retried one message at a time; a message that fails `maxAttempts` times alone is published to
 *   the dead-letter topic and skipped. Transient errors (the store is down) retry forever.
 * - One subscription may cover several topics: it joins the group on each, and each batch holds
 *   one topic's messages (`message.topic`).
 * - Values are stored as JSON text (as on Kafka): every delivery gets fresh objects, and a value
 *   that is not JSON-serialisable is refused at publish time.
 * - `close()` stops consumers after their in-flight batch and resolves once they are idle;
 *   publishes still waiting for room reject with UNAVAILABLE.
 * - With a `log` (stream.lmdb.ts) the bus is durable: a publish resolves only once its messages
 *   are on disk, consumers see only messages already on disk (so a committed offset never runs
 *   ahead of the durable log), group offsets are committed to the log after each batch, and a new
 *   process resumes every topic and group where the log says.
 * - Memory is bounded by bytes when the log can read entries back (`StreamLog.read`): a topic keeps
 *   at most `maxResidentBytes` of message text in memory; durable messages beyond that are dropped
 *   from memory and read back from the log when a group reaches them (newest first: the messages
 *   consumers read next stay in memory). A restarted process reads its backlog from the log the
 *   same way instead of loading it whole. Messages not yet durable always stay in memory.
 *
 * The parts: stream.memory-topic.ts (a topic's log, byte budget and waiting publishes),
 * stream.memory-group.ts (a consumer group's offset, turns, retries and dead letters); this file
 * is the bus that holds them and the EventStream it offers.
 */
import { AppError } from '@pylon/kit/errors';
import type { ConsumerOptions, EventStream, StreamMessage, Subscription } from '@pylon/kit/ports/stream';
import { ConsumerGroup, type ConsumerState, type GroupSettings } from './stream.memory-group.js';
import { encode, TopicLog, unavailable, type StreamLog, type TopicSettings } from './stream.memory-topic.js';

export type { StoredEntry, StreamLog } from './stream.memory-topic.js';

export interface MemoryStreamOptions {
  /** Messages a topic may retain before publish waits (per topic). Default 10 000. */
  maxBuffered?: number;
  /** How long a publish may wait for room before it rejects with UNAVAILABLE. Default 30 000 ms; 0 waits forever. */
  publishTimeoutMs?: number;
  /** First retry delay after a handler failure. Default 100 ms; doubles per attempt. */
  retryBaseMs?: number;
  /** Largest retry delay. Default 5 000 ms. */
  retryMaxMs?: number;
  /** Told about every handler failure (the batch is retried regardless). */
  onHandlerError?: (error: unknown, info: { topic: string; group: string; attempt: number; size: number }) => void;
  /** Where messages and committed offsets persist; without it everything lives in memory only. */
  log?: StreamLog;
  /**
   * Bytes of message text a topic keeps in memory when the log can read entries back (durable
   * messages beyond it are read from the log on delivery). Default 64 MiB; ignored without `log.read`.
   */
  maxResidentBytes?: number;
}

const DEFAULT_MAX_BATCH = 500;
const DEFAULT_MAX_WAIT_MS = 50;

function positiveInt(value: number | undefined, def: number, field: string): number {
  if (value === undefined) return def;
  if (!Number.isInteger(value) || value < 1) throw new AppError('BAD_USER_INPUT', `${field} must be a positive integer`, { field });
  return value;
}

function nonNegative(value: number | undefined, def: number, field: string): number {
  if (value === undefined) return def;
  if (!Number.isFinite(value) || value < 0) throw new AppError('BAD_USER_INPUT', `${field} must be a non-negative number`, { field });
  return value;
}

/** The bus, plus what it holds in memory. */
export interface MemoryStream extends EventStream {
  /** Bytes of message text a topic holds in memory (0 for a topic it does not know). */
  residentBytes(topic: string): number;
}

/** The topics, their groups and the bus's own state; `createMemoryStream` offers it as an EventStream. */
class MemoryBus {
  private readonly topics = new Map<string, TopicLog<ConsumerGroup>>();
  private closed = false;
  private readonly log: StreamLog | undefined;
  private readonly publishTimeoutMs: number;
  private readonly topicSettings: TopicSettings;
  private readonly groupSettings: GroupSettings;
  private logClosed: Promise<void> | undefined;

  constructor(opts: MemoryStreamOptions) {
    const maxBuffered = positiveInt(opts.maxBuffered, 10_000, 'maxBuffered');
    this.publishTimeoutMs = nonNegative(opts.publishTimeoutMs, 30_000, 'publishTimeoutMs');
    const retryBaseMs = nonNegative(opts.retryBaseMs, 100, 'retryBaseMs');
    const retryMaxMs = nonNegative(opts.retryMaxMs, 5_000, 'retryMaxMs');
    const readBack = opts.log?.read ? opts.log.read.bind(opts.log) : undefined;
    const maxResident = readBack ? positiveInt(opts.maxResidentBytes, 64 * 1024 * 1024, 'maxResidentBytes') : Infinity;
    this.log = opts.log;
    this.topicSettings = { log: opts.log, readBack, maxBuffered, maxResident, appending: new Set() };
    this.groupSettings = {
      closed: () => this.closed,
      retryBaseMs,
      retryMaxMs,
      onHandlerError: opts.onHandlerError,
      log: opts.log,
      topicOf: (name) => this.topicOf(name),
    };
    if (opts.log) this.resume(opts.log);
  }

  /** Resumes what the log holds: topics from their lowest committed offset, groups at their offsets. */
  private resume(log: StreamLog): void {
    const state = log.load();
    for (const lt of state.topics) this.topicOf(lt.name).restore(lt);
    for (const o of state.offsets) {
      const t = this.topicOf(o.topic);
      t.groups.set(o.group, new ConsumerGroup(o.group, t, Math.min(Math.max(o.offset, t.first), t.end()), this.groupSettings));
    }
  }

  private topicOf(name: string): TopicLog<ConsumerGroup> {
    if (typeof name !== 'string' || name.length === 0) throw new AppError('BAD_USER_INPUT', 'topic must be a non-empty string', { field: 'topic' });
    let t = this.topics.get(name);
    if (!t) {
      t = new TopicLog<ConsumerGroup>(name, this.topicSettings);
      this.topics.set(name, t);
    }
    return t;
  }

  async publish(topic: string, messages: StreamMessage[]): Promise<void> {
    if (this.closed) throw unavailable('event stream is closed');
    const t = this.topicOf(topic);
    const now = Date.now();
    const entries = messages.map((m) => encode(m, now));
    if (entries.length === 0) return;
    await t.publish(entries, this.publishTimeoutMs);
  }

  async subscribe(topics: string | readonly string[], options: ConsumerOptions, handler: ConsumerState['handler']): Promise<Subscription> {
    if (this.closed) throw unavailable('event stream is closed');
    if (typeof options?.group !== 'string' || options.group.length === 0) {
      throw new AppError('BAD_USER_INPUT', 'group must be a non-empty string', { field: 'group' });
    }
    const names = [...new Set(typeof topics === 'string' ? [topics] : topics)];
    if (names.length === 0) throw new AppError('BAD_USER_INPUT', 'at least one topic is needed', { field: 'topic' });
    const dl = options.deadLetter;
    if (dl !== undefined) {
      positiveInt(dl.maxAttempts, 1, 'deadLetter.maxAttempts');
      if (names.includes(dl.topic)) throw new AppError('BAD_USER_INPUT', 'a topic cannot be its own dead letter', { field: 'deadLetter.topic' });
    }
    const template = {
      handler,
      maxBatchSize: positiveInt(options.maxBatchSize, DEFAULT_MAX_BATCH, 'maxBatchSize'),
      maxWaitMs: nonNegative(options.maxWaitMs, DEFAULT_MAX_WAIT_MS, 'maxWaitMs'),
      deadLetter: dl,
    };
    // One consumer state per topic (each has its own batch in flight); they share the handler.
    const joined: { c: ConsumerState; group: ConsumerGroup }[] = [];
    for (const name of names) {
      const c: ConsumerState = { ...template, closed: false, inFlight: null };
      const group = await this.groupOf(this.topicOf(name), options.group);
      group.join(c);
      joined.push({ c, group });
    }
    return {
      alive: () => !this.closed && joined.every(({ c }) => !c.closed),
      close: async () => {
        await Promise.all(joined.map(({ c, group }) => group.leave(c)));
      },
    };
  }

  /** The group `name` on topic `t`; a new one starts at the earliest retained message and holds retention from now on, across restarts too. */
  private async groupOf(t: TopicLog<ConsumerGroup>, name: string): Promise<ConsumerGroup> {
    let g = t.groups.get(name);
    if (!g) {
      g = new ConsumerGroup(name, t, t.first, this.groupSettings);
      t.groups.set(name, g);
      if (this.log) await this.log.commit(t.name, g.name, g.offset);
    }
    return g;
  }

  residentBytes(topic: string): number {
    return this.topics.get(topic)?.resident ?? 0;
  }

  lag(): { topic: string; group: string; lag: number }[] {
    const out: { topic: string; group: string; lag: number }[] = [];
    for (const t of this.topics.values()) for (const g of t.groups.values()) out.push({ topic: t.name, group: g.name, lag: Math.max(0, t.end() - g.offset) });
    return out;
  }

  ping(): void {
    if (this.closed) throw unavailable('event stream is closed');
  }

  /** Stops consumers after their batch in flight, rejects waiting publishes, then closes the log. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      for (const t of this.topics.values()) {
        t.rejectPending();
        for (const g of t.groups.values()) g.wake?.();
      }
    }
    const loops: Promise<unknown>[] = [];
    for (const t of this.topics.values()) {
      for (const g of t.groups.values()) {
        if (g.loop) loops.push(g.loop);
        for (const c of g.consumers) if (c.inFlight) loops.push(c.inFlight);
      }
    }
    await Promise.all(loops);
    if (this.log) {
      await Promise.all([...this.topicSettings.appending]);
      this.logClosed ??= this.log.close();
      await this.logClosed;
    }
  }
}

export function createMemoryStream(opts: MemoryStreamOptions = {}): MemoryStream {
  const bus = new MemoryBus(opts);
  // Own properties, not a class instance: callers spread or wrap the stream (Object.assign, { ...inner }).
  return {
    publish: (topic, messages) => bus.publish(topic, messages),
    subscribe: (topics, options, handler) => bus.subscribe(topics, options, handler),
    residentBytes: (topic) => bus.residentBytes(topic),
    lag: async () => bus.lag(),
    ping: async () => bus.ping(),
    close: () => bus.close(),
  };
}
