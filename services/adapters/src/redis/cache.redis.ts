/**
 * Scaled Cache, PubSub and Leases: Redis through ioredis, so replicas share cached values, messages and counted holds.
 *
 * - Values are JSON text under `keyPrefix + key`; TTLs are set in milliseconds (PX), so
 *   fractional seconds work. A stored value that is not JSON reads as a miss.
 * - `incr` runs one Lua script: INCR, then PEXPIRE only when the key has no TTL yet, so the
 *   window is fixed by the first increment (works on any Redis with scripting, unlike EXPIRE NX).
 * - Fail fast: the client connects at once, a command waits at most `commandTimeoutMs`
 *   (default 1 500 ms) and at most 2 reconnection attempts, then rejects with
 *   AppError('UNAVAILABLE'). Reconnection itself goes on forever in the background.
 * - PubSub publishes on one connection and listens on a dedicated subscriber connection.
 *   `subscribe` resolves after Redis acknowledged SUBSCRIBE; channels are subscribed once per
 *   instance however many handlers they have, and unsubscribed with the last handler.
 *   Messages published while the subscriber connection is down are lost (Redis pub/sub is fire
 *   and forget); ioredis resubscribes on reconnect.
 * - Leases: one sorted set per name (`keyPrefix + name`), holders scored by when their hold lapses,
 *   on the server's clock (TIME inside the scripts), so replicas' clocks do not matter. Taking
 *   holds is one script (drop lapsed holds, check every limit, then add to every set), so two
 *   replicas never both take the last place. Each set expires with its last hold.
 */
import type { Redis } from 'ioredis';
import { AppError } from '@pylon/kit/errors';
import type { Cache, Leases, PubSub } from '@pylon/kit/ports/cache';
import { checkTtl, toJson } from '../memory/cache.memory.js';
import { openRedis, shutdown } from './connection.redis.js';

export interface RedisConnectionOptions {
  /** redis://[user:pass@]host:port[/db] or rediss:// */
  url: string;
  /** Longest a command may take, including waiting for a connection. Default 1 500 ms. */
  commandTimeoutMs?: number;
  /** TCP connect timeout per attempt. Default 2 000 ms. */
  connectTimeoutMs?: number;
  /** Connection errors (reconnection goes on by itself). Default: ignored, commands report them. */
  onError?: (error: Error) => void;
}

export interface RedisCacheOptions extends RedisConnectionOptions {
  keyPrefix?: string;
}

export interface RedisPubSubOptions extends RedisConnectionOptions {
  channelPrefix?: string;
  /** Told when a handler throws or a message is not JSON (delivery to other handlers goes on). */
  onHandlerError?: (error: unknown, channel: string) => void;
}

const INCR_SCRIPT = `
local v = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return v
`;

function connect(opts: RedisConnectionOptions, name: string): Redis {
  return openRedis({ ...opts, commandTimeoutMs: opts.commandTimeoutMs ?? 1_500, connectTimeoutMs: opts.connectTimeoutMs ?? 2_000 }, name);
}

function unavailable(what: string, cause: unknown): AppError {
  if (cause instanceof AppError) return cause;
  const e = new AppError('UNAVAILABLE', `${what} is unavailable`);
  e.cause = cause;
  return e;
}

/**
 * A client's commands as `what` (the cache, the leases): refused once `close()` ran, and any
 * failure reported as UNAVAILABLE naming it. `close()` says whether this call closed it (the first).
 */
function guarded(what: string) {
  let closed = false;
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (closed) throw new AppError('UNAVAILABLE', `${what} is closed`);
      try {
        return await fn();
      } catch (e) {
        throw unavailable(what, e);
      }
    },
    close(): boolean {
      if (closed) return false;
      closed = true;
      return true;
    },
  };
}

function parse(json: string | null): unknown {
  if (json === null) return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

export function createRedisCache(opts: RedisCacheOptions): Cache {
  const prefix = opts.keyPrefix ?? '';
  const redis = connect(opts, 'pylon-cache');
  const { run, close } = guarded('cache');

  return {
    async get<T = unknown>(key: string): Promise<T | undefined> {
      return parse(await run(() => redis.get(prefix + key))) as T | undefined;
    },
    async set(key, value, ttlSeconds) {
      const ms = checkTtl(ttlSeconds);
      const json = toJson(value);
      await run(() => redis.set(prefix + key, json, 'PX', ms));
    },
    async del(key) {
      await run(() => redis.del(prefix + key));
    },
    async incr(key, ttlSeconds) {
      const ms = checkTtl(ttlSeconds);
      const v = await run(() => redis.eval(INCR_SCRIPT, 1, prefix + key, String(ms)));
      return Number(v);
    },
    async ping() {
      await run(() => redis.ping());
    },
    async close() {
      if (close()) await shutdown(redis);
    },
  };
}

export function createRedisPubSub(opts: RedisPubSubOptions): PubSub {
  const prefix = opts.channelPrefix ?? '';
  const pub = connect(opts, 'pylon-pub');
  const sub = connect(opts, 'pylon-sub');
  const handlers = new Map<string, Set<(message: unknown) => void>>();
  /** Per channel, the SUBSCRIBE/UNSUBSCRIBE in progress, so they apply in call order. */
  const chains = new Map<string, Promise<void>>();
  let closed = false;

  sub.on('message', (prefixed: string, text: string) => {
    if (!prefixed.startsWith(prefix)) return;
    const channel = prefixed.slice(prefix.length);
    const set = handlers.get(channel);
    if (!set || set.size === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (e) {
      opts.onHandlerError?.(e, channel);
      return;
    }
    for (const h of [...set]) {
      try {
        h(message);
      } catch (e) {
        try {
          opts.onHandlerError?.(e, channel);
        } catch {
          /* ignore */
        }
      }
    }
  });

  function serial(channel: string, op: () => Promise<void>): Promise<void> {
    const prev = chains.get(channel) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(op);
    const tail = next.catch(() => undefined);
    chains.set(channel, tail);
    void tail.then(() => {
      if (chains.get(channel) === tail) chains.delete(channel);
    });
    return next;
  }

  /** Channels this instance has a Redis subscription for. */
  const subscribedChannels = new Set<string>();

  return {
    async publish(channel, message) {
      if (closed) throw new AppError('UNAVAILABLE', 'pub/sub is closed');
      const json = toJson(message ?? null);
      try {
        await pub.publish(prefix + channel, json);
      } catch (e) {
        throw unavailable('pub/sub', e);
      }
    },
    async subscribe(channel, handler) {
      if (closed) throw new AppError('UNAVAILABLE', 'pub/sub is closed');
      // Each subscription gets its own wrapper so the same function may be subscribed twice.
      const h = (m: unknown) => handler(m);
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
      }
      set.add(h);
      try {
        await serial(channel, async () => {
          if (subscribedChannels.has(channel) || !handlers.get(channel)?.size) return;
          await sub.subscribe(prefix + channel);
          subscribedChannels.add(channel);
        });
      } catch (e) {
        set.delete(h);
        if (set.size === 0) handlers.delete(channel);
        throw unavailable('pub/sub', e);
      }
      let done = false;
      return async () => {
        if (done) return;
        done = true;
        const current = handlers.get(channel);
        current?.delete(h);
        if (current && current.size === 0) handlers.delete(channel);
        if (closed) return;
        try {
          await serial(channel, async () => {
            if (!subscribedChannels.has(channel) || (handlers.get(channel)?.size ?? 0) > 0) return;
            subscribedChannels.delete(channel);
            await sub.unsubscribe(prefix + channel);
          });
        } catch (e) {
          throw unavailable('pub/sub', e);
        }
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      handlers.clear();
      await Promise.all([shutdown(pub), shutdown(sub)]);
    },
  };
}

/** The server's time in ms, as Lua (TIME: seconds and microseconds). */
const LEASE_NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
/** Adds (or moves) ARGV[1]'s hold to now + ttl in KEYS[i], keeping the set until its last hold lapses. */
const LEASE_HOLD = `local function hold(key, ttl)
  redis.call('ZADD', key, now + ttl, ARGV[1])
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end`;
/** KEYS: the names; ARGV: holder, ttl ms, each name's limit. Returns 0 when taken, else the index of the first full name. */
const LEASE_ACQUIRE = `${LEASE_NOW}
${LEASE_HOLD}
local ttl = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if not redis.call('ZSCORE', key, ARGV[1]) and redis.call('ZCARD', key) >= tonumber(ARGV[i + 2]) then return i end
end
for _, key in ipairs(KEYS) do hold(key, ttl) end
return 0`;
const LEASE_RENEW = `${LEASE_NOW}
${LEASE_HOLD}
for _, key in ipairs(KEYS) do hold(key, tonumber(ARGV[2])) end
return 0`;
const LEASE_COUNT = `${LEASE_NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])`;

export function createRedisLeases(opts: RedisCacheOptions): Leases {
  const prefix = opts.keyPrefix ?? '';
  const redis = connect(opts, 'pylon-leases');
  const { run, close } = guarded('lease store');
  const keys = (names: readonly string[]) => names.map((n) => prefix + n);
  return {
    async acquire(slots, holder, ttlSeconds) {
      const ms = checkTtl(ttlSeconds);
      if (slots.length === 0) return null;
      const full = Number(
        await run(() => redis.eval(LEASE_ACQUIRE, slots.length, ...keys(slots.map((s) => s.name)), holder, String(ms), ...slots.map((s) => String(s.limit)))),
      );
      return full === 0 ? null : slots[full - 1]!.name;
    },
    async renew(names, holder, ttlSeconds) {
      const ms = checkTtl(ttlSeconds);
      if (names.length) await run(() => redis.eval(LEASE_RENEW, names.length, ...keys(names), holder, String(ms)));
    },
    async release(names, holder) {
      if (names.length) await run(() => Promise.all(keys(names).map((k) => redis.zrem(k, holder))));
    },
    async count(name) {
      return Number(await run(() => redis.eval(LEASE_COUNT, 1, prefix + name)));
    },
    async close() {
      if (close()) await shutdown(redis);
    },
  };
}
