/**
 * Embedded Cache and PubSub: in-process, for a single replica.
 *
 * Cache: JSON text with an expiry per entry, bounded by `maxEntries` and by `maxBytes` (least
 * recently used goes first; kit's bounded LRU, kit/src/graphql/bounded-cache.ts). Expired entries are never returned; they are dropped when met and by a small
 * sweep on every write. Values are stored as JSON so callers get fresh copies, as from Redis.
 *
 * PubSub: instances created from the same hub see each other's messages (tests use that to
 * stand for two replicas; one process normally shares a single hub). Delivery is asynchronous
 * (like a network hop), in publish order, with JSON copies; a throwing handler is isolated.
 *
 * Leases: per name, the holders and when each hold lapses; lapsed holds are dropped when the name
 * is next touched.
 */
import { AppError } from '@pylon/kit/errors';
import { createBoundedCache } from '@pylon/kit/graphql/bounded-cache';
import type { Cache, Leases, PubSub } from '@pylon/kit/ports/cache';

export interface MemoryCacheOptions {
  /** Most entries kept; the least recently used are evicted beyond it. Default 10 000. */
  maxEntries?: number;
  /**
   * Most bytes kept (two per character of each key and JSON value, plus 100 per entry): a bound on
   * the heap whatever the values' sizes (issue 34: principals, and whatever else callers cache). Default 64 MiB.
   */
  maxBytes?: number;
  /** Clock, for tests. Default Date.now. */
  now?: () => number;
}

interface CacheEntry {
  json: string;
  expiresAt: number;
}

export function checkTtl(ttlSeconds: number): number {
  if (typeof ttlSeconds !== 'number' || !Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new AppError('BAD_USER_INPUT', 'ttlSeconds must be a positive number', { field: 'ttlSeconds' });
  }
  return Math.max(1, Math.ceil(ttlSeconds * 1000));
}

export function toJson(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new AppError('BAD_USER_INPUT', 'cached value is not JSON-serialisable', { field: 'value' });
  return json;
}

const closedError = () => new AppError('UNAVAILABLE', 'cache is closed');

export function createMemoryCache(opts: MemoryCacheOptions = {}): Cache {
  const maxEntries = opts.maxEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new AppError('BAD_USER_INPUT', 'maxEntries must be a positive integer', { field: 'maxEntries' });
  }
  const maxBytes = opts.maxBytes ?? 64 * 2 ** 20;
  const now = opts.now ?? Date.now;
  const map = createBoundedCache<CacheEntry>({ maxEntries, maxBytes });
  let closed = false;

  /** The entry if it has not expired (made the most recently used). */
  function live(key: string): CacheEntry | undefined {
    const e = map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return e;
  }

  /** Stores as most recently used (the bounds evict the least recently used), sweeping a few of the oldest expired entries. */
  function store(key: string, entry: CacheEntry): void {
    const t = now();
    let checked = 0;
    const expired: string[] = [];
    for (const [k, e] of map.entries()) {
      if (checked++ >= 8) break;
      if (e.expiresAt <= t) expired.push(k);
    }
    for (const k of expired) map.delete(k);
    map.set(key, entry, 100 + 2 * (key.length + entry.json.length));
  }

  return {
    async get<T = unknown>(key: string): Promise<T | undefined> {
      if (closed) throw closedError();
      const e = live(key);
      if (!e) return undefined;
      return JSON.parse(e.json) as T;
    },
    async set(key, value, ttlSeconds) {
      if (closed) throw closedError();
      const ms = checkTtl(ttlSeconds);
      store(key, { json: toJson(value), expiresAt: now() + ms });
    },
    async del(key) {
      if (closed) throw closedError();
      map.delete(key);
    },
    async incr(key, ttlSeconds) {
      if (closed) throw closedError();
      const ms = checkTtl(ttlSeconds);
      const e = live(key);
      if (!e) {
        store(key, { json: '1', expiresAt: now() + ms });
        return 1;
      }
      const current: unknown = JSON.parse(e.json);
      if (typeof current !== 'number' || !Number.isSafeInteger(current)) {
        throw new AppError('BAD_USER_INPUT', 'cached value is not an integer', { field: 'key' });
      }
      const next = current + 1;
      store(key, { json: String(next), expiresAt: e.expiresAt });
      return next;
    },
    async ping() {
      if (closed) throw closedError();
    },
    async close() {
      closed = true;
      map.clear();
    },
  };
}

type Listener = { handler: (message: unknown) => void; active: boolean };

/** Shared by the PubSub instances that should see each other's messages. */
export interface MemoryPubSubHub {
  readonly channels: Map<string, Set<Listener>>;
}

export function createMemoryPubSubHub(): MemoryPubSubHub {
  return { channels: new Map() };
}

export interface MemoryPubSubOptions {
  /** Told when a handler throws (delivery to other handlers goes on). */
  onHandlerError?: (error: unknown, channel: string) => void;
}

export function createMemoryPubSub(hub: MemoryPubSubHub = createMemoryPubSubHub(), opts: MemoryPubSubOptions = {}): PubSub {
  const mine = new Map<Listener, string>();
  let closed = false;

  function remove(listener: Listener): void {
    listener.active = false;
    const channel = mine.get(listener);
    mine.delete(listener);
    if (channel === undefined) return;
    const set = hub.channels.get(channel);
    if (!set) return;
    set.delete(listener);
    if (set.size === 0) hub.channels.delete(channel);
  }

  return {
    async publish(channel, message) {
      if (closed) throw new AppError('UNAVAILABLE', 'pub/sub is closed');
      const json = toJson(message ?? null);
      const set = hub.channels.get(channel);
      if (!set || set.size === 0) return;
      const targets = [...set];
      setImmediate(() => {
        for (const l of targets) {
          if (!l.active) continue;
          try {
            l.handler(JSON.parse(json));
          } catch (e) {
            try {
              opts.onHandlerError?.(e, channel);
            } catch {
              /* ignore */
            }
          }
        }
      });
    },
    async subscribe(channel, handler) {
      if (closed) throw new AppError('UNAVAILABLE', 'pub/sub is closed');
      const listener: Listener = { handler, active: true };
      let set = hub.channels.get(channel);
      if (!set) {
        set = new Set();
        hub.channels.set(channel, set);
      }
      set.add(listener);
      mine.set(listener, channel);
      return async () => remove(listener);
    },
    async close() {
      closed = true;
      for (const l of [...mine.keys()]) remove(l);
    },
  };
}

export function createMemoryLeases(opts: { now?: () => number } = {}): Leases {
  const now = opts.now ?? Date.now;
  /** name -> holder -> when the hold lapses */
  const names = new Map<string, Map<string, number>>();
  let closed = false;
  const live = (name: string) => {
    const holds = names.get(name);
    if (!holds) return new Map<string, number>();
    const t = now();
    for (const [h, until] of holds) if (until <= t) holds.delete(h);
    if (holds.size === 0) names.delete(name);
    return holds;
  };
  const hold = (name: string, holder: string, ms: number) => {
    const holds = names.get(name) ?? new Map<string, number>();
    names.set(name, holds.set(holder, now() + ms));
  };
  const open = () => {
    if (closed) throw new AppError('UNAVAILABLE', 'leases are closed');
  };
  return {
    async acquire(slots, holder, ttlSeconds) {
      open();
      const ms = checkTtl(ttlSeconds);
      const full = slots.find((s) => {
        const holds = live(s.name);
        return !holds.has(holder) && holds.size >= s.limit;
      });
      if (full) return full.name;
      for (const s of slots) hold(s.name, holder, ms);
      return null;
    },
    async renew(list, holder, ttlSeconds) {
      open();
      const ms = checkTtl(ttlSeconds);
      for (const name of list) hold(name, holder, ms);
    },
    async release(list, holder) {
      open();
      for (const name of list) {
        live(name).delete(holder);
        if (names.get(name)?.size === 0) names.delete(name);
      }
    },
    async count(name) {
      open();
      return live(name).size;
    },
    async close() {
      closed = true;
      names.clear();
    },
  };
}
