/**
 * EventStream on Redis Streams (STREAM_DRIVER=redis): the scaled stream for deployments that run
 * several processes over one Redis and no Kafka (and what the distributed tests use).
 *
 *   topic  -> stream `<prefix><topic>`; each message one entry { v: JSON, k?: key, t: timestamp }
 *   group  -> consumer group (created at id 0: a new group reads what was published before it)
 *   member -> consumer `<group member id>`, one per subscription, on its own connection (XREADGROUP BLOCK)
 *
 * Invariants:
 * - A batch is acknowledged (XACK) only after its handler resolved: at-least-once.
 * - Entries another member read but did not acknowledge for `claimIdleMs` (it crashed, or left
 *   without committing) are claimed (XAUTOCLAIM) by any live member of the group, before new
 *   ones; so a process killed mid-batch loses nothing, its batch is handled again elsewhere.
 * - A live member keeps its claim: while it holds a batch (handler running, or backing off between
 *   attempts) it renews the entries every claimIdleMs / 3 and whenever the handler calls
 *   `context.heartbeat()`, resetting their idle time (XCLAIM ... JUSTID). Renewal and acknowledgement
 *   are fenced: one Lua script checks that this member still owns every entry (XPENDING) before it
 *   renews or acknowledges, so a member that stalled past claimIdleMs (GC, CPU starvation, a
 *   stopped process) cannot take the entries back or acknowledge another member's work; its next
 *   heartbeat rejects with LeaseLostError and the batch is abandoned here. What it wrote between its
 *   last renewal and the stall is found stored by the new owner (exactly-once.ts, rollup-repair.ts).
 * - Order per key holds within one member (entries are handed over in stream order); a failing
 *   batch is retried (exponential backoff, transient errors forever), and with `deadLetter` a
 *   batch that failed `maxAttempts` times is retried one message at a time, a message failing as
 *   often goes to the dead-letter topic and is acknowledged.
 * - Retention (every `retentionIntervalMs`) trims a topic below the oldest entry any group still
 *   needs (pending, or not yet delivered) and only what is older than `retentionMs`.
 */
import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { AppError } from '@pylon/kit/errors';
import { toJson } from '../memory/cache.memory.js';
import {
  isLeaseLost,
  isTransientError,
  LeaseLostError,
  TransientError,
  type BatchContext,
  type ConsumerOptions,
  type DeadLetter,
  type EventStream,
  type GroupLag,
  type StreamMessage,
  type Subscription,
} from '@pylon/kit/ports/stream';

export interface RedisStreamOptions {
  url: string;
  /** Key prefix of the streams. Default `pylon:stream:`. */
  keyPrefix?: string;
  /** An entry read by a member that has not acknowledged it this long is claimed by another. Default 30 000 ms. */
  claimIdleMs?: number;
  /** First retry delay of a failing batch; doubles up to retryMaxMs. Defaults 100 / 5 000 ms. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Consumed entries are kept at most this long. Default 24 h. */
  retentionMs?: number;
  /** How often retention runs (0: never). Default 60 s. */
  retentionIntervalMs?: number;
  /** Longest a command may take (blocking reads excepted). Default 5 000 ms. */
  commandTimeoutMs?: number;
  /**
   * What a publish waits for before it resolves. By default Redis answers XADD from memory: with
   * `appendfsync everysec` (the default of `appendonly yes`) a power loss or kernel crash loses up
   * to one second of acknowledged entries, and a failover loses what the replica had not yet got.
   * `aof`: also wait until the entries are fsynced to the local AOF (WAITAOF 1 <replicas>, Redis 7.2+,
   * `appendonly yes`). `replicas`: wait until this many replicas have them (WAIT, or WAITAOF's
   * second count with `aof`). Not met within `timeoutMs`: the publish rejects UNAVAILABLE (the
   * entries may be stored; the publisher retries and the ingest drops the repeat).
   */
  publishWait?: { aof?: boolean; replicas?: number; timeoutMs?: number };
  onError?: (error: Error) => void;
}

type Entry = [id: string, fields: string[]];

/**
 * An XREADGROUP reply as [stream key, entries] pairs: RESP2 answers a list of pairs, RESP3 a map
 * (which ioredis hands over flattened: key, entries, key, entries...); no reply (timeout) is none.
 */
function streamsOf(reply: unknown): [string, Entry[]][] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  if (typeof reply[0] !== 'string') return reply as [string, Entry[]][];
  const out: [string, Entry[]][] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) out.push([reply[i] as string, reply[i + 1] as Entry[]]);
  return out;
}

const BLOCK_MS = 250;

/**
 * KEYS[1] the stream; ARGV group, member, 'renew' or 'ack', then the entry ids. Returns 1 when the
 * member owned every entry (and renewed or acknowledged them), 0 when another member holds one:
 * then nothing is changed. Atomic, so no claim can slip between the check and the change.
 */
const FENCED = `
for i = 4, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if #p == 0 or p[1][2] ~= ARGV[2] then return 0 end
end
for i = 4, #ARGV, 1000 do
  local ids = {}
  for j = i, math.min(i + 999, #ARGV) do ids[#ids + 1] = ARGV[j] end
  if ARGV[3] == 'ack' then
    redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
  else
    ids[#ids + 1] = 'JUSTID'
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids))
  end
end
return 1`;
const unavailable = (what: string, cause?: unknown) => {
  if (cause instanceof AppError) return cause;
  const e = new AppError('UNAVAILABLE', `${what} is unavailable`);
  if (cause !== undefined) e.cause = cause;
  return e;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

function connect(o: RedisStreamOptions, name: string, blocking: boolean): Redis {
  const options: RedisOptions = {
    enableOfflineQueue: true,
    maxRetriesPerRequest: 2,
    // A blocking read waits BLOCK_MS by itself; the command timeout must outlast it.
    commandTimeout: (o.commandTimeoutMs ?? 5_000) + (blocking ? BLOCK_MS : 0),
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    connectionName: name,
    disconnectTimeout: 200,
  };
  const client = new Redis(o.url, options);
  client.on('error', (err: Error) => o.onError?.(err));
  return client;
}

async function shutdown(client: Redis): Promise<void> {
  if (client.status === 'ready') await Promise.race([client.quit().catch(() => undefined), sleep(1_000)]);
  client.disconnect();
}

/** The entry's fields; a value that is not JSON-serialisable is BAD_USER_INPUT (kit's toJson). */
function encode(m: StreamMessage, now: number): string[] {
  return ['v', toJson(m.value ?? null), 't', String(m.timestamp ?? now), ...(m.key !== undefined && m.key !== null ? ['k', m.key] : [])];
}

function decode(fields: string[], topic: string): StreamMessage {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  let value: unknown;
  try {
    value = JSON.parse(f.v ?? 'null');
  } catch {
    value = f.v; // written by another producer: handed over as its raw text
  }
  const m: StreamMessage = { value, timestamp: Number(f.t) || 0, topic };
  if (f.k !== undefined) m.key = f.k;
  return m;
}

/** Compares stream ids (`ms-seq`). */
function idBefore(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am < bm || (am === bm && as < bs);
}

export function createRedisStream(o: RedisStreamOptions): EventStream & { retain(): Promise<void> } {
  const prefix = o.keyPrefix ?? 'pylon:stream:';
  const claimIdleMs = o.claimIdleMs ?? 30_000;
  const retryBaseMs = o.retryBaseMs ?? 100;
  const retryMaxMs = o.retryMaxMs ?? 5_000;
  const retentionMs = o.retentionMs ?? 86_400_000;
  const redis = connect(o, 'pylon-stream', false);
  const subscriptions = new Set<{ close(): Promise<void> }>();
  /** Topic -> groups this instance consumes with (lag, retention). */
  const known = new Map<string, Set<string>>();
  let closed = false;

  const keyOf = (topic: string) => prefix + topic;
  const topicOf = (key: string) => key.slice(prefix.length);
  const checkName = (v: unknown, field: string) => {
    if (typeof v !== 'string' || v.length === 0) throw new AppError('BAD_USER_INPUT', `${field} must be a non-empty string`, { field });
  };

  async function publish(topic: string, messages: StreamMessage[]): Promise<void> {
    if (closed) throw new AppError('UNAVAILABLE', 'stream is closed');
    checkName(topic, 'topic');
    if (messages.length === 0) return;
    const now = Date.now();
    const encoded = messages.map((m) => encode(m, now));
    if (!known.has(topic)) known.set(topic, new Set());
    try {
      const pipe = redis.multi();
      for (const fields of encoded) pipe.call('XADD', keyOf(topic), '*', ...fields);
      const results = await pipe.exec();
      const failed = results?.find(([err]) => err);
      if (!results || failed) throw failed?.[0] ?? new Error('the transaction was discarded');
    } catch (e) {
      throw unavailable('stream', e);
    }
    if (o.publishWait) await durable(o.publishWait);
  }

  /** Waits until the publish is on disk (AOF) and/or on replicas, as `publishWait` asks. */
  async function durable(w: NonNullable<RedisStreamOptions['publishWait']>): Promise<void> {
    const replicas = w.replicas ?? 0;
    const timeout = w.timeoutMs ?? 1_000;
    if (!w.aof && replicas === 0) return;
    let reply: unknown;
    try {
      reply = w.aof ? await redis.call('WAITAOF', 1, replicas, timeout) : await redis.call('WAIT', replicas, timeout);
    } catch (e) {
      const why = /unknown command/i.test(String((e as Error).message))
        ? 'the stream cannot wait for its AOF: WAITAOF needs Redis 7.2 or later'
        : /appendonly/i.test(String((e as Error).message))
          ? 'the stream cannot wait for its AOF: the Redis server runs without appendonly'
          : 'stream is unavailable';
      const err = new AppError('UNAVAILABLE', why);
      err.cause = e;
      throw err;
    }
    const [local, copies] = w.aof ? (reply as [number, number]) : [1, Number(reply)];
    if (local < 1 || copies < replicas) {
      throw new AppError(
        'UNAVAILABLE',
        `the stream stored the entries but could not confirm them durable within ${timeout} ms (${copies} of ${replicas} replicas)`,
      );
    }
  }

  async function ensureGroup(topic: string, group: string): Promise<void> {
    try {
      await redis.call('XGROUP', 'CREATE', keyOf(topic), group, '0', 'MKSTREAM');
    } catch (e) {
      if (!String((e as Error).message).includes('BUSYGROUP')) throw unavailable('stream', e);
    }
  }

  async function subscribe(
    topics: string | readonly string[],
    options: ConsumerOptions,
    handler: (batch: StreamMessage[], context: BatchContext) => Promise<void>,
  ): Promise<Subscription> {
    if (closed) throw new AppError('UNAVAILABLE', 'stream is closed');
    const names = [...new Set(typeof topics === 'string' ? [topics] : topics)];
    if (names.length === 0) throw new AppError('BAD_USER_INPUT', 'at least one topic is needed', { field: 'topic' });
    names.forEach((t) => checkName(t, 'topic'));
    checkName(options.group, 'group');
    const dl = options.deadLetter;
    if (dl && names.includes(dl.topic)) throw new AppError('BAD_USER_INPUT', 'a topic cannot be its own dead letter', { field: 'deadLetter.topic' });
    const group = options.group;
    const maxBatch = Math.max(1, options.maxBatchSize ?? 500);
    const maxWaitMs = Math.max(0, options.maxWaitMs ?? 50);
    for (const t of names) {
      await ensureGroup(t, group);
      if (!known.has(t)) known.set(t, new Set());
      known.get(t)!.add(group);
    }
    const member = `${group}:${randomUUID()}`;
    const reader = connect(o, 'pylon-stream-reader', true);
    let stopping = false;
    let alive = true;

    /** Entries idle in other members (crashed, or gone without committing), oldest first. */
    async function claim(topic: string): Promise<Entry[]> {
      const [, entries] = (await reader.call('XAUTOCLAIM', keyOf(topic), group, member, claimIdleMs, '0-0', 'COUNT', maxBatch)) as [string, Entry[]];
      return entries.filter((e) => Array.isArray(e[1])); // deleted entries come back as null fields
    }

    async function readNew(): Promise<[string, Entry[]][]> {
      const keys = names.map(keyOf);
      const first = streamsOf(
        await reader.call('XREADGROUP', 'GROUP', group, member, 'COUNT', maxBatch, 'BLOCK', BLOCK_MS, 'STREAMS', ...keys, ...keys.map(() => '>')),
      );
      if (maxWaitMs === 0 || first.length === 0) return first;
      // Fill the batch for up to maxWaitMs (fewer, larger batches under a trickle).
      const byKey = new Map(first.map(([k, e]) => [k, [...e]]));
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        const size = Math.max(...[...byKey.values()].map((e) => e.length));
        const left = deadline - Date.now();
        if (size >= maxBatch || left <= 0 || stopping) break;
        const more = streamsOf(
          await reader.call(
            'XREADGROUP',
            'GROUP',
            group,
            member,
            'COUNT',
            maxBatch - size,
            'BLOCK',
            Math.max(1, Math.min(left, BLOCK_MS)),
            'STREAMS',
            ...keys,
            ...keys.map(() => '>'),
          ),
        );
        for (const [k, e] of more) byKey.set(k, [...(byKey.get(k) ?? []), ...e]);
      }
      return [...byKey.entries()];
    }

    /** Renews (or acknowledges) `ids` if this member still owns them all; false once another does. */
    async function fenced(topic: string, mode: 'renew' | 'ack', ids: string[]): Promise<boolean> {
      return (await redis.call('EVAL', FENCED, 1, keyOf(topic), group, member, mode, ...ids)) === 1;
    }

    /** This member's hold on a batch: renewed in the background and on `heartbeat()`, until `release()`. */
    function hold(topic: string, ids: string[]): { context: BatchContext; lost(): boolean; release(): void } {
      let lost = false;
      const renew = async () => {
        if (!lost && !(await fenced(topic, 'renew', ids))) lost = true;
      };
      const timer = setInterval(() => void renew().catch(() => undefined), Math.max(10, Math.floor(claimIdleMs / 3)));
      timer.unref();
      return {
        context: {
          async heartbeat() {
            try {
              await renew();
            } catch (e) {
              throw new TransientError('the stream could not renew the batch', { cause: e });
            }
            if (lost) throw new LeaseLostError();
          },
        },
        lost: () => lost,
        release: () => clearInterval(timer),
      };
    }

    /**
     * Handles one batch until it succeeds, is dead-lettered or was taken over; false when stopping
     * first. `held`: a hold taken when the batch was read (a read of several topics waits its turn).
     */
    async function handle(
      topic: string,
      entries: Entry[],
      held = hold(
        topic,
        entries.map(([id]) => id),
      ),
    ): Promise<boolean> {
      try {
        return await attempts(topic, entries, held);
      } finally {
        held.release();
      }
    }

    async function attempts(topic: string, entries: Entry[], held: ReturnType<typeof hold>): Promise<boolean> {
      const messages = entries.map(([, fields]) => decode(fields, topic));
      const ids = entries.map(([id]) => id);
      let attempt = 0;
      for (;;) {
        try {
          await handler(messages, held.context);
          // Fenced: entries another member claimed meanwhile are its to acknowledge.
          await fenced(topic, 'ack', ids);
          return true;
        } catch (err) {
          // Taken over (this member stalled past claimIdleMs): the new owner handles the batch.
          if (isLeaseLost(err) || held.lost()) return true;
          attempt++;
          if (dl && !isTransientError(err) && attempt >= dl.maxAttempts) {
            if (entries.length > 1) {
              // Find the culprit: the same messages one at a time, each with its own attempts.
              for (const e of entries) if (!(await handle(topic, [e]))) return false;
              return true;
            }
            const [id] = entries[0]!;
            const m = messages[0]!;
            const letter: DeadLetter = {
              topic,
              group,
              position: id,
              key: m.key ?? null,
              value: m.value,
              timestamp: m.timestamp ?? 0,
              error: err instanceof Error ? err.message.slice(0, 2000) : String(err).slice(0, 2000),
              attempts: attempt,
              dead_lettered_at: Date.now(),
            };
            await publish(dl.topic, [{ ...(m.key !== undefined ? { key: m.key } : {}), value: letter, timestamp: letter.dead_lettered_at }]);
            await fenced(topic, 'ack', [id]);
            return true;
          }
          if (stopping) return false;
          await sleep(Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(attempt - 1, 30)));
          if (stopping) return false;
        }
      }
    }

    const loop = (async () => {
      let lastClaim = 0;
      while (!stopping) {
        try {
          let handled = false;
          if (Date.now() - lastClaim >= Math.min(claimIdleMs, 5_000)) {
            lastClaim = Date.now();
            for (const t of names) {
              const stale = await claim(t);
              if (stale.length) {
                handled = true;
                if (!(await handle(t, stale))) break;
              }
            }
          }
          if (handled || stopping) continue;
          // Every topic's entries are held from the read on, not only while their turn runs.
          const read = (await readNew()).filter(([, entries]) => entries.length > 0);
          const holds = read.map(([key, entries]) =>
            hold(
              topicOf(key),
              entries.map(([id]) => id),
            ),
          );
          try {
            for (let i = 0; i < read.length; i++) if (!(await handle(topicOf(read[i]![0]), read[i]![1], holds[i]))) break;
          } finally {
            for (const h of holds) h.release();
          }
        } catch (e) {
          if (stopping) break;
          o.onError?.(e instanceof Error ? e : new Error(String(e)));
          await sleep(retryBaseMs * 10);
        }
      }
    })().catch(() => {
      alive = false;
    });

    const sub = {
      async close() {
        if (stopping) return loop;
        stopping = true;
        await loop;
        subscriptions.delete(sub);
        await shutdown(reader);
      },
      alive: () => alive && !stopping,
    };
    subscriptions.add(sub);
    return sub;
  }

  async function lag(): Promise<GroupLag[]> {
    const out: GroupLag[] = [];
    for (const [topic, groups] of known) {
      if (groups.size === 0) continue;
      const info = (await redis.call('XINFO', 'GROUPS', keyOf(topic)).catch(() => [])) as unknown[][];
      for (const row of info) {
        const f: Record<string, unknown> = {};
        for (let i = 0; i + 1 < row.length; i += 2) f[String(row[i])] = row[i + 1];
        if (!groups.has(String(f.name))) continue;
        // `lag` (entries not yet delivered; Redis 7) plus `pending` (delivered, not acknowledged).
        out.push({ topic, group: String(f.name), lag: (Number(f.lag) || 0) + (Number(f.pending) || 0) });
      }
    }
    return out;
  }

  /** Trims each known topic below what every group still needs and older than the retention. */
  async function retain(): Promise<void> {
    for (const topic of known.keys()) {
      const key = keyOf(topic);
      const info = (await redis.call('XINFO', 'GROUPS', key).catch(() => [])) as unknown[][];
      if (info.length === 0) continue; // no group reads it yet: keep everything
      let floor = `${Date.now() - retentionMs}-0`;
      for (const row of info) {
        const f: Record<string, unknown> = {};
        for (let i = 0; i + 1 < row.length; i += 2) f[String(row[i])] = row[i + 1];
        const delivered = String(f['last-delivered-id'] ?? '0-0');
        if (idBefore(delivered, floor)) floor = delivered === '0-0' ? '0-1' : delivered;
        const pending = (await redis.call('XPENDING', key, String(f.name))) as [number, string | null, string | null, unknown];
        if (pending[1] && idBefore(pending[1], floor)) floor = pending[1];
      }
      // MINID keeps `floor` itself: the last delivered entry stays (it is consumed, harmless).
      await redis.call('XTRIM', key, 'MINID', floor);
    }
  }
  const retention =
    (o.retentionIntervalMs ?? 60_000) > 0 ? setInterval(() => void retain().catch(() => undefined), o.retentionIntervalMs ?? 60_000) : undefined;
  retention?.unref();

  return {
    publish,
    subscribe,
    lag,
    retain,
    async ping() {
      if (closed) throw new AppError('UNAVAILABLE', 'stream is closed');
      try {
        await redis.ping();
      } catch (e) {
        throw unavailable('stream', e);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (retention) clearInterval(retention);
      await Promise.all([...subscriptions].map((s) => s.close()));
      await shutdown(redis);
    },
  };
}
