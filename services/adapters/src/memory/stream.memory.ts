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
 */
import { AppError } from '@pylon/kit/errors';
import {
  HELD_BATCH,
  isTransientError,
  type BatchContext,
  type ConsumerOptions,
  type DeadLetter,
  type DeadLetterOptions,
  type EventStream,
  type StreamMessage,
  type Subscription,
} from '@pylon/kit/ports/stream';

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

/** A message as the bus keeps it: the value as JSON text. */
export interface StoredEntry {
  key: string | undefined;
  timestamp: number;
  json: string;
}

/** Durable storage under the bus (stream.lmdb.ts): appends, committed offsets, what survived a restart. */
export interface StreamLog {
  /**
   * Per topic the run of entries from the lowest committed offset on (`next` is the next offset to
   * assign), and every group's committed offset. A log that can `read` may leave `entries` out: the
   * bus then reads them when a group reaches them.
   */
  load(): {
    topics: { name: string; first: number; next: number; entries?: StoredEntry[] }[];
    offsets: { topic: string; group: string; offset: number }[];
  };
  /** The durable entries [from, to) of a topic, in order (synchronous: a memory-mapped read). */
  read?(topic: string, from: number, to: number): StoredEntry[];
  /** Resolves once the entries (offsets first, first + 1, ...) are durable. */
  append(topic: string, first: number, entries: StoredEntry[]): Promise<void>;
  /** Records that `group` consumed everything below `offset`. */
  commit(topic: string, group: string, offset: number): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_MAX_BATCH = 500;
const DEFAULT_MAX_WAIT_MS = 50;

type Entry = StoredEntry;
/** A slot of a topic's log in memory: the entry, or null once it was dropped from memory (durable; read back on delivery). */
type Slot = Entry | null;

interface PendingPublish {
  entries: Entry[];
  appended: number;
  /** Appends of this publish not yet durable. */
  persisting: Promise<void>[];
  resolve: () => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

interface ConsumerState {
  handler: (batch: StreamMessage[], context: BatchContext) => Promise<void>;
  maxBatchSize: number;
  maxWaitMs: number;
  deadLetter: DeadLetterOptions | undefined;
  closed: boolean;
  inFlight: Promise<unknown> | null;
}

interface GroupState {
  name: string;
  /** Absolute offset of the next message this group has not consumed. */
  offset: number;
  consumers: ConsumerState[];
  turn: number;
  /** Offsets below this are delivered one at a time (a batch among them kept failing). */
  isolateUntil: number;
  running: boolean;
  loop: Promise<void> | null;
  /** Wakes the loop from any wait (consumer change, close). */
  wake: (() => void) | null;
}

interface TopicState {
  name: string;
  entries: Slot[];
  /** Bytes of message text held in memory (entries not evicted). */
  resident: number;
  /** Absolute offset of entries[0]. */
  first: number;
  /** Offsets below this are durable (with a log) and may be delivered. */
  durableEnd: number;
  groups: Map<string, GroupState>;
  pending: PendingPublish[];
  /** Woken when messages are appended. */
  dataWaiters: Set<() => void>;
}

const unavailable = (message: string, details: Record<string, unknown> = {}) => new AppError('UNAVAILABLE', message, details);

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

function encode(m: StreamMessage, now: number): Entry {
  let json: string | undefined;
  try {
    json = JSON.stringify(m.value ?? null);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new AppError('BAD_USER_INPUT', 'message value is not JSON-serialisable', { field: 'value' });
  return { key: m.key ?? undefined, timestamp: m.timestamp ?? now, json };
}

function decode(e: Entry, topic: string): StreamMessage {
  const m: StreamMessage = { value: JSON.parse(e.json), timestamp: e.timestamp, topic };
  if (e.key !== undefined) m.key = e.key;
  return m;
}

/** The bus, plus what it holds in memory. */
export interface MemoryStream extends EventStream {
  /** Bytes of message text a topic holds in memory (0 for a topic it does not know). */
  residentBytes(topic: string): number;
}

export function createMemoryStream(opts: MemoryStreamOptions = {}): MemoryStream {
  const maxBuffered = positiveInt(opts.maxBuffered, 10_000, 'maxBuffered');
  const publishTimeoutMs = nonNegative(opts.publishTimeoutMs, 30_000, 'publishTimeoutMs');
  const retryBaseMs = nonNegative(opts.retryBaseMs, 100, 'retryBaseMs');
  const retryMaxMs = nonNegative(opts.retryMaxMs, 5_000, 'retryMaxMs');
  const readBack = opts.log?.read ? opts.log.read.bind(opts.log) : undefined;
  const maxResident = readBack ? positiveInt(opts.maxResidentBytes, 64 * 1024 * 1024, 'maxResidentBytes') : Infinity;
  const topics = new Map<string, TopicState>();
  let closed = false;

  function topicOf(name: string): TopicState {
    if (typeof name !== 'string' || name.length === 0) throw new AppError('BAD_USER_INPUT', 'topic must be a non-empty string', { field: 'topic' });
    let t = topics.get(name);
    if (!t) {
      t = { name, entries: [], resident: 0, first: 0, durableEnd: 0, groups: new Map(), pending: [], dataWaiters: new Set() };
      topics.set(name, t);
    }
    return t;
  }

  const end = (t: TopicState) => t.first + t.entries.length;
  /** The end consumers may read up to: everything appended without a log, the durable part with one. */
  const readable = (t: TopicState) => (opts.log ? t.durableEnd : end(t));

  // Resume what the log holds: topics from their lowest committed offset, groups at their offsets.
  if (opts.log) {
    const state = opts.log.load();
    for (const lt of state.topics) {
      const t = topicOf(lt.name);
      if (lt.entries) {
        t.entries = lt.entries;
        t.resident = lt.entries.reduce((n, e) => n + e.json.length, 0);
        t.first = lt.next - lt.entries.length;
      } else {
        // Read back from the log when a group reaches them.
        t.entries = new Array<Slot>(lt.next - lt.first).fill(null);
        t.first = lt.first;
      }
      t.durableEnd = lt.next;
    }
    for (const o of state.offsets) {
      const t = topicOf(o.topic);
      t.groups.set(o.group, {
        name: o.group,
        offset: Math.min(Math.max(o.offset, t.first), end(t)),
        consumers: [],
        turn: 0,
        isolateUntil: 0,
        running: false,
        loop: null,
        wake: null,
      });
    }
  }

  /** Appends entries to the in-memory log and, with a log, to disk; resolves once durable and readable. */
  function append(t: TopicState, entries: Entry[]): Promise<void> {
    const first = end(t);
    for (const e of entries) {
      t.entries.push(e);
      t.resident += e.json.length;
    }
    if (!opts.log) {
      notifyData(t);
      return Promise.resolve();
    }
    const done = opts.log.append(t.name, first, entries).then(() => {
      t.durableEnd = Math.max(t.durableEnd, first + entries.length);
      evict(t, first, first + entries.length);
      notifyData(t);
    });
    const tracked = done.catch(() => undefined).finally(() => appending.delete(tracked));
    appending.add(tracked);
    return done;
  }
  const appending = new Set<Promise<unknown>>();
  let logClosed: Promise<void> | undefined;

  /**
   * Over the byte budget, drops durable entries of [from, to) from memory, newest first (what
   * consumers read next stays). Entries appended earlier were judged when they became durable.
   */
  function evict(t: TopicState, from: number, to: number): void {
    for (let o = Math.min(to, end(t)) - 1; t.resident > maxResident && o >= Math.max(from, t.first); o--) {
      const i = o - t.first;
      const e = t.entries[i];
      if (e) {
        t.resident -= e.json.length;
        t.entries[i] = null;
      }
    }
  }

  /** Entries [from, to) of a topic (absolute offsets, within what the bus holds), read back from the log where evicted. */
  function entriesOf(t: TopicState, from: number, to: number): Entry[] {
    const slots = t.entries.slice(from - t.first, to - t.first);
    if (!slots.includes(null)) return slots as Entry[];
    // Evicted entries are a durable run: read the whole range once (sequential on disk).
    const read = readBack!(t.name, from, to);
    if (read.length !== to - from) throw new AppError('INTERNAL', 'the stream log lost messages it had acknowledged', { topic: t.name, from, to });
    return slots.map((e, i) => e ?? read[i]!);
  }

  function notifyData(t: TopicState): void {
    const waiters = [...t.dataWaiters];
    t.dataWaiters.clear();
    for (const w of waiters) w();
  }

  /** Drops what every group has consumed; keeps everything while no group exists. */
  function trim(t: TopicState): void {
    if (t.groups.size === 0) return;
    let min = Infinity;
    for (const g of t.groups.values()) min = Math.min(min, g.offset);
    const drop = Math.min(min - t.first, t.entries.length);
    if (drop > 0) {
      for (const e of t.entries.splice(0, drop)) if (e) t.resident -= e.json.length;
      t.first += drop;
    }
  }

  /** Appends waiting publishes, oldest first, as far as room allows. */
  function pump(t: TopicState): void {
    while (t.pending.length > 0) {
      const room = maxBuffered - t.entries.length;
      if (room <= 0) break;
      const p = t.pending[0]!;
      const take = Math.min(room, p.entries.length - p.appended);
      if (take > 0) p.persisting.push(append(t, p.entries.slice(p.appended, p.appended + take)));
      p.appended += take;
      if (p.appended >= p.entries.length) {
        t.pending.shift();
        if (p.timer) clearTimeout(p.timer);
        Promise.all(p.persisting).then(() => p.resolve(), p.reject);
      }
    }
  }

  /** Waits for the group's wake signal, optionally for new data, at most `ms`. */
  function wait(t: TopicState, g: GroupState, onData: boolean, ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        t.dataWaiters.delete(done);
        if (g.wake === done) g.wake = null;
        resolve();
      };
      g.wake = done;
      if (onData) t.dataWaiters.add(done);
      if (ms !== undefined) timer = setTimeout(done, ms);
    });
  }

  const active = (g: GroupState) => !closed && g.consumers.length > 0;

  function nextConsumer(g: GroupState): ConsumerState | undefined {
    if (g.consumers.length === 0) return undefined;
    g.turn = g.turn % g.consumers.length;
    const c = g.consumers[g.turn];
    g.turn = (g.turn + 1) % g.consumers.length;
    return c;
  }

  /** Hands messages [g.offset, g.offset + n) to consumers until one succeeds; false when stopped. */
  async function deliver(t: TopicState, g: GroupState, size: number): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const c = nextConsumer(g);
      if (!c || closed) return 0;
      const n = g.offset < g.isolateUntil ? 1 : Math.min(size, c.maxBatchSize);
      const batch = entriesOf(t, g.offset, g.offset + n).map((e) => decode(e, t.name));
      const run = (async () => c.handler(batch, HELD_BATCH))(); // one process: no one else takes it over
      c.inFlight = run.catch(() => undefined);
      try {
        await run;
        return n;
      } catch (err) {
        try {
          opts.onHandlerError?.(err, { topic: t.name, group: g.name, attempt, size: n });
        } catch {
          /* a failing reporter must not stop delivery */
        }
        if (!active(g)) return 0;
        const dl = c.deadLetter;
        if (dl && !isTransientError(err) && attempt >= dl.maxAttempts) {
          if (n > 1) {
            // Find the culprit: the same messages again, one at a time, each with its own attempts.
            g.isolateUntil = g.offset + n;
            attempt = 0;
            continue;
          }
          const entry = entriesOf(t, g.offset, g.offset + 1)[0]!;
          const letter: DeadLetter = {
            topic: t.name,
            group: g.name,
            position: String(g.offset),
            key: entry.key ?? null,
            value: JSON.parse(entry.json),
            timestamp: entry.timestamp,
            error: err instanceof Error ? err.message.slice(0, 2000) : String(err).slice(0, 2000),
            attempts: attempt,
            dead_lettered_at: Date.now(),
          };
          await append(topicOf(dl.topic), [{ key: entry.key, timestamp: letter.dead_lettered_at, json: JSON.stringify(letter) }]);
          return 1;
        }
        const delay = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(attempt - 1, 30));
        await wait(t, g, false, delay);
        if (!active(g)) return 0;
      } finally {
        c.inFlight = null;
      }
    }
  }

  async function runGroup(t: TopicState, g: GroupState): Promise<void> {
    g.running = true;
    try {
      while (active(g)) {
        if (readable(t) - g.offset <= 0) {
          await wait(t, g, true);
          continue;
        }
        // Peek at whose turn it is to size the batch and its partial-batch wait.
        const next = g.consumers[g.turn % g.consumers.length]!;
        if (readable(t) - g.offset < next.maxBatchSize && next.maxWaitMs > 0) {
          const deadline = Date.now() + next.maxWaitMs;
          while (active(g) && readable(t) - g.offset < next.maxBatchSize) {
            const left = deadline - Date.now();
            if (left <= 0) break;
            await wait(t, g, true, left);
          }
          if (!active(g)) break;
        }
        const size = Math.min(readable(t) - g.offset, next.maxBatchSize);
        const consumed = await deliver(t, g, size);
        if (consumed === 0) break;
        g.offset += consumed;
        if (opts.log) {
          // A commit that fails costs a redelivery after a restart, never a loss.
          await opts.log.commit(t.name, g.name, g.offset).catch(() => undefined);
        }
        trim(t);
        pump(t);
      }
    } finally {
      g.running = false;
      g.loop = null;
    }
  }

  return {
    async publish(topic, messages) {
      if (closed) throw unavailable('event stream is closed');
      const t = topicOf(topic);
      const now = Date.now();
      const entries = messages.map((m) => encode(m, now));
      if (entries.length === 0) return;
      if (t.pending.length === 0 && t.entries.length + entries.length <= maxBuffered) {
        await append(t, entries);
        return;
      }
      await new Promise<void>((resolve, reject) => {
        const p: PendingPublish = { entries, appended: 0, persisting: [], resolve, reject, timer: undefined };
        if (publishTimeoutMs > 0 && Number.isFinite(publishTimeoutMs)) {
          p.timer = setTimeout(() => {
            const i = t.pending.indexOf(p);
            if (i >= 0) t.pending.splice(i, 1);
            reject(unavailable('event stream is full; publish timed out', { topic, published: p.appended, total: entries.length }));
          }, publishTimeoutMs);
        }
        t.pending.push(p);
        pump(t);
      });
    },

    async subscribe(topics, options: ConsumerOptions, handler): Promise<Subscription> {
      if (closed) throw unavailable('event stream is closed');
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
      const joined: { c: ConsumerState; group: GroupState }[] = [];
      for (const name of names) {
        const c: ConsumerState = { ...template, closed: false, inFlight: null };
        const t = topicOf(name);
        let g = t.groups.get(options.group);
        if (!g) {
          g = { name: options.group, offset: t.first, consumers: [], turn: 0, isolateUntil: 0, running: false, loop: null, wake: null };
          t.groups.set(options.group, g);
          // The group holds retention from now on, across restarts too.
          if (opts.log) await opts.log.commit(t.name, g.name, g.offset);
        }
        const group = g;
        group.consumers.push(c);
        if (!group.running) group.loop = runGroup(t, group);
        else group.wake?.();
        joined.push({ c, group });
      }

      return {
        alive: () => !closed && joined.every(({ c }) => !c.closed),
        async close() {
          await Promise.all(
            joined.map(async ({ c, group }) => {
              if (c.closed) return;
              c.closed = true;
              const i = group.consumers.indexOf(c);
              if (i >= 0) group.consumers.splice(i, 1);
              group.wake?.();
              if (c.inFlight) await c.inFlight;
              if (group.consumers.length === 0 && group.loop) await group.loop;
            }),
          );
        },
      };
    },

    residentBytes: (topic) => topics.get(topic)?.resident ?? 0,

    async lag() {
      const out: { topic: string; group: string; lag: number }[] = [];
      for (const t of topics.values()) for (const g of t.groups.values()) out.push({ topic: t.name, group: g.name, lag: Math.max(0, end(t) - g.offset) });
      return out;
    },

    async ping() {
      if (closed) throw unavailable('event stream is closed');
    },

    async close() {
      if (!closed) {
        closed = true;
        for (const t of topics.values()) {
          for (const p of t.pending.splice(0)) {
            if (p.timer) clearTimeout(p.timer);
            p.reject(unavailable('event stream is closed', { topic: t.name, published: p.appended, total: p.entries.length }));
          }
          for (const g of t.groups.values()) g.wake?.();
        }
      }
      const loops: Promise<unknown>[] = [];
      for (const t of topics.values()) {
        for (const g of t.groups.values()) {
          if (g.loop) loops.push(g.loop);
          for (const c of g.consumers) if (c.inFlight) loops.push(c.inFlight);
        }
      }
      await Promise.all(loops);
      if (opts.log) {
        await Promise.all([...appending]);
        logClosed ??= opts.log.close();
        await logClosed;
      }
    },
  };
}
