/**
 * One topic of the in-process bus (stream.memory.ts): its append log in memory, what of it is
 * durable and readable, the byte budget (durable entries dropped from memory and read back from the
 * log), trimming what every group consumed, and publishes waiting for room.
 */
import { AppError } from '@pylon/kit/errors';
import type { StreamMessage } from '@pylon/kit/ports/stream';

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

/** What every topic of one bus shares. */
export interface TopicSettings {
  /** Where appends persist; without it everything lives in memory only. */
  log: StreamLog | undefined;
  /** Reads evicted entries back (the log's `read`); without it nothing is evicted. */
  readBack: ((topic: string, from: number, to: number) => StoredEntry[]) | undefined;
  /** Messages a topic may retain before publish waits. */
  maxBuffered: number;
  /** Bytes of message text a topic keeps in memory (Infinity without `readBack`). */
  maxResident: number;
  /** Appends to the log still in flight, so closing waits for them. */
  appending: Set<Promise<unknown>>;
}

/** A slot of a topic's log in memory: the entry, or null once it was dropped from memory (durable; read back on delivery). */
type Slot = StoredEntry | null;

interface PendingPublish {
  entries: StoredEntry[];
  appended: number;
  /** Appends of this publish not yet durable. */
  persisting: Promise<void>[];
  resolve: () => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

export const unavailable = (message: string, details: Record<string, unknown> = {}) => new AppError('UNAVAILABLE', message, details);

export function encode(m: StreamMessage, now: number): StoredEntry {
  let json: string | undefined;
  try {
    json = JSON.stringify(m.value ?? null);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new AppError('BAD_USER_INPUT', 'message value is not JSON-serialisable', { field: 'value' });
  return { key: m.key ?? undefined, timestamp: m.timestamp ?? now, json };
}

export function decode(e: StoredEntry, topic: string): StreamMessage {
  const m: StreamMessage = { value: JSON.parse(e.json), timestamp: e.timestamp, topic };
  if (e.key !== undefined) m.key = e.key;
  return m;
}

/** A topic's log; `G` is the bus's consumer group, of which the topic reads only the offset. */
export class TopicLog<G extends { readonly offset: number }> {
  entries: Slot[] = [];
  /** Bytes of message text held in memory (entries not evicted). */
  resident = 0;
  /** Absolute offset of entries[0]. */
  first = 0;
  /** Offsets below this are durable (with a log) and may be delivered. */
  durableEnd = 0;
  readonly groups = new Map<string, G>();
  readonly pending: PendingPublish[] = [];
  /** Woken when messages are appended. */
  readonly dataWaiters = new Set<() => void>();

  constructor(
    readonly name: string,
    private readonly s: TopicSettings,
  ) {}

  /** Takes up what the log held for this topic after a restart. */
  restore(logged: { first: number; next: number; entries?: StoredEntry[] }): void {
    if (logged.entries) {
      this.entries = logged.entries;
      this.resident = logged.entries.reduce((n, e) => n + e.json.length, 0);
      this.first = logged.next - logged.entries.length;
    } else {
      // Read back from the log when a group reaches them.
      this.entries = new Array<Slot>(logged.next - logged.first).fill(null);
      this.first = logged.first;
    }
    this.durableEnd = logged.next;
  }

  end(): number {
    return this.first + this.entries.length;
  }

  /** The end consumers may read up to: everything appended without a log, the durable part with one. */
  readable(): number {
    return this.s.log ? this.durableEnd : this.end();
  }

  /** Appends entries to the in-memory log and, with a log, to disk; resolves once durable and readable. */
  append(entries: StoredEntry[]): Promise<void> {
    const first = this.end();
    for (const e of entries) {
      this.entries.push(e);
      this.resident += e.json.length;
    }
    if (!this.s.log) {
      this.notifyData();
      return Promise.resolve();
    }
    const done = this.s.log.append(this.name, first, entries).then(() => {
      this.durableEnd = Math.max(this.durableEnd, first + entries.length);
      this.evict(first, first + entries.length);
      this.notifyData();
    });
    const appending = this.s.appending;
    const tracked = done.catch(() => undefined).finally(() => appending.delete(tracked));
    appending.add(tracked);
    return done;
  }

  /**
   * Over the byte budget, drops durable entries of [from, to) from memory, newest first (what
   * consumers read next stays). Entries appended earlier were judged when they became durable.
   */
  private evict(from: number, to: number): void {
    for (let o = Math.min(to, this.end()) - 1; this.resident > this.s.maxResident && o >= Math.max(from, this.first); o--) {
      const i = o - this.first;
      const e = this.entries[i];
      if (e) {
        this.resident -= e.json.length;
        this.entries[i] = null;
      }
    }
  }

  /** Entries [from, to) (absolute offsets, within what the bus holds), read back from the log where evicted. */
  entriesOf(from: number, to: number): StoredEntry[] {
    const slots = this.entries.slice(from - this.first, to - this.first);
    if (!slots.includes(null)) return slots as StoredEntry[];
    // Evicted entries are a durable run: read the whole range once (sequential on disk).
    const read = this.s.readBack!(this.name, from, to);
    if (read.length !== to - from) throw new AppError('INTERNAL', 'the stream log lost messages it had acknowledged', { topic: this.name, from, to });
    return slots.map((e, i) => e ?? read[i]!);
  }

  private notifyData(): void {
    const waiters = [...this.dataWaiters];
    this.dataWaiters.clear();
    for (const w of waiters) w();
  }

  /** Drops what every group has consumed; keeps everything while no group exists. */
  trim(): void {
    if (this.groups.size === 0) return;
    let min = Infinity;
    for (const g of this.groups.values()) min = Math.min(min, g.offset);
    const drop = Math.min(min - this.first, this.entries.length);
    if (drop > 0) {
      for (const e of this.entries.splice(0, drop)) if (e) this.resident -= e.json.length;
      this.first += drop;
    }
  }

  /** Appends `entries` now when there is room and nobody waits, else waits its turn for room (at most `timeoutMs`; 0 waits forever). */
  async publish(entries: StoredEntry[], timeoutMs: number): Promise<void> {
    if (this.pending.length === 0 && this.entries.length + entries.length <= this.s.maxBuffered) {
      await this.append(entries);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const p: PendingPublish = { entries, appended: 0, persisting: [], resolve, reject, timer: undefined };
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        p.timer = setTimeout(() => {
          const i = this.pending.indexOf(p);
          if (i >= 0) this.pending.splice(i, 1);
          reject(unavailable('event stream is full; publish timed out', { topic: this.name, published: p.appended, total: entries.length }));
        }, timeoutMs);
      }
      this.pending.push(p);
      this.pump();
    });
  }

  /** Appends waiting publishes, oldest first, as far as room allows. */
  pump(): void {
    while (this.pending.length > 0) {
      const room = this.s.maxBuffered - this.entries.length;
      if (room <= 0) break;
      const p = this.pending[0]!;
      const take = Math.min(room, p.entries.length - p.appended);
      if (take > 0) p.persisting.push(this.append(p.entries.slice(p.appended, p.appended + take)));
      p.appended += take;
      if (p.appended >= p.entries.length) {
        this.pending.shift();
        if (p.timer) clearTimeout(p.timer);
        Promise.all(p.persisting).then(() => p.resolve(), p.reject);
      }
    }
  }

  /** Rejects every publish still waiting for room (the bus is closing). */
  rejectPending(): void {
    for (const p of this.pending.splice(0)) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(unavailable('event stream is closed', { topic: this.name, published: p.appended, total: p.entries.length }));
    }
  }
}
