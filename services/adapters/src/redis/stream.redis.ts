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
 *
 * The parts: stream.redis-wire.ts (connections, entry format, replies, the fenced script),
 * stream.redis-member.ts (one subscription's member: claim, read, hold, retry, dead-letter); this
 * file holds the command connection, publishing, groups, lag and retention.
 */

import type { Redis } from 'ioredis';
import { AppError } from '@pylon/kit/errors';
import {
  streamMethodsOf,
  type BatchContext,
  type ConsumerOptions,
  type EventStream,
  type GroupLag,
  type StreamMessage,
  type Subscription,
} from '@pylon/kit/ports/stream';
import { RedisMember, type MemberDeps } from './stream.redis-member.js';
import { connect, encode, fieldsOf, idBefore, unavailable, type RedisConnectionOptions } from './stream.redis-wire.js';
import { shutdown } from './connection.redis.js';

export interface RedisStreamOptions extends RedisConnectionOptions {
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
}

const checkName = (v: unknown, field: string) => {
  if (typeof v !== 'string' || v.length === 0) throw new AppError('BAD_USER_INPUT', `${field} must be a non-empty string`, { field });
};

/** The stream's command connection, its topics and groups, and the members it started. */
class RedisBus {
  private readonly prefix: string;
  private readonly retentionMs: number;
  private readonly redis: Redis;
  private readonly members = new Set<Subscription>();
  /** Topic -> groups this instance consumes with (lag, retention). */
  private readonly known = new Map<string, Set<string>>();
  private readonly memberDeps: MemberDeps;
  private readonly retention: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(private readonly o: RedisStreamOptions) {
    this.prefix = o.keyPrefix ?? 'pylon:stream:';
    this.retentionMs = o.retentionMs ?? 86_400_000;
    this.redis = connect(o, 'pylon-stream', false);
    this.memberDeps = {
      connection: o,
      redis: this.redis,
      keyOf: (topic) => this.keyOf(topic),
      topicOf: (key) => key.slice(this.prefix.length),
      claimIdleMs: o.claimIdleMs ?? 30_000,
      retryBaseMs: o.retryBaseMs ?? 100,
      retryMaxMs: o.retryMaxMs ?? 5_000,
      publish: (topic, messages) => this.publish(topic, messages),
    };
    const every = o.retentionIntervalMs ?? 60_000;
    this.retention = every > 0 ? setInterval(() => void this.retain().catch(() => undefined), every) : undefined;
    this.retention?.unref();
  }

  private keyOf(topic: string): string {
    return this.prefix + topic;
  }

  async publish(topic: string, messages: StreamMessage[]): Promise<void> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'stream is closed');
    checkName(topic, 'topic');
    if (messages.length === 0) return;
    const now = Date.now();
    const encoded = messages.map((m) => encode(m, now));
    if (!this.known.has(topic)) this.known.set(topic, new Set());
    try {
      const pipe = this.redis.multi();
      for (const fields of encoded) pipe.call('XADD', this.keyOf(topic), '*', ...fields);
      const results = await pipe.exec();
      const failed = results?.find(([err]) => err);
      if (!results || failed) throw failed?.[0] ?? new Error('the transaction was discarded');
    } catch (e) {
      throw unavailable('stream', e);
    }
    if (this.o.publishWait) await this.durable(this.o.publishWait);
  }

  /** Waits until the publish is on disk (AOF) and/or on replicas, as `publishWait` asks. */
  private async durable(w: NonNullable<RedisStreamOptions['publishWait']>): Promise<void> {
    const replicas = w.replicas ?? 0;
    const timeout = w.timeoutMs ?? 1_000;
    if (!w.aof && replicas === 0) return;
    let reply: unknown;
    try {
      reply = w.aof ? await this.redis.call('WAITAOF', 1, replicas, timeout) : await this.redis.call('WAIT', replicas, timeout);
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

  private async ensureGroup(topic: string, group: string): Promise<void> {
    try {
      await this.redis.call('XGROUP', 'CREATE', this.keyOf(topic), group, '0', 'MKSTREAM');
    } catch (e) {
      if (!String((e as Error).message).includes('BUSYGROUP')) throw unavailable('stream', e);
    }
  }

  async subscribe(
    topics: string | readonly string[],
    options: ConsumerOptions,
    handler: (batch: StreamMessage[], context: BatchContext) => Promise<void>,
  ): Promise<Subscription> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'stream is closed');
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
      await this.ensureGroup(t, group);
      if (!this.known.has(t)) this.known.set(t, new Set());
      this.known.get(t)!.add(group);
    }
    const member: RedisMember = new RedisMember(this.memberDeps, { topics: names, group, maxBatch, maxWaitMs, deadLetter: dl, handler }, () =>
      this.members.delete(member),
    );
    this.members.add(member);
    return member;
  }

  /** Each known topic's XINFO GROUPS rows as objects (none when the stream is not there). */
  private async groupsOf(key: string): Promise<Record<string, unknown>[]> {
    const info = (await this.redis.call('XINFO', 'GROUPS', key).catch(() => [])) as unknown[][];
    return info.map(fieldsOf);
  }

  async lag(): Promise<GroupLag[]> {
    const out: GroupLag[] = [];
    for (const [topic, groups] of this.known) {
      if (groups.size === 0) continue;
      for (const f of await this.groupsOf(this.keyOf(topic))) {
        if (!groups.has(String(f.name))) continue;
        // `lag` (entries not yet delivered; Redis 7) plus `pending` (delivered, not acknowledged).
        out.push({ topic, group: String(f.name), lag: (Number(f.lag) || 0) + (Number(f.pending) || 0) });
      }
    }
    return out;
  }

  /** Trims each known topic below what every group still needs and older than the retention. */
  async retain(): Promise<void> {
    for (const topic of this.known.keys()) {
      const key = this.keyOf(topic);
      const groups = await this.groupsOf(key);
      if (groups.length === 0) continue; // no group reads it yet: keep everything
      let floor = `${Date.now() - this.retentionMs}-0`;
      for (const f of groups) {
        const delivered = String(f['last-delivered-id'] ?? '0-0');
        if (idBefore(delivered, floor)) floor = delivered === '0-0' ? '0-1' : delivered;
        const pending = (await this.redis.call('XPENDING', key, String(f.name))) as [number, string | null, string | null, unknown];
        if (pending[1] && idBefore(pending[1], floor)) floor = pending[1];
      }
      // MINID keeps `floor` itself: the last delivered entry stays (it is consumed, harmless).
      await this.redis.call('XTRIM', key, 'MINID', floor);
    }
  }

  async ping(): Promise<void> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'stream is closed');
    try {
      await this.redis.ping();
    } catch (e) {
      throw unavailable('stream', e);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retention) clearInterval(this.retention);
    await Promise.all([...this.members].map((s) => s.close()));
    await shutdown(this.redis);
  }
}

export function createRedisStream(o: RedisStreamOptions): EventStream & { retain(): Promise<void> } {
  const bus = new RedisBus(o);
  return { ...streamMethodsOf(bus), retain: () => bus.retain() };
}
