/**
 * One subscription of the Redis stream: a consumer-group member with its own blocking connection.
 * Its loop claims entries idle in other members first, then reads new ones; each batch is held
 * (renewed in the background and on `heartbeat()`, fenced by FENCED) until its handler resolved
 * and the batch is acknowledged, dead-lettered, or taken over by another member. The invariants
 * are stated in stream.redis.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  isLeaseLost,
  isTransientError,
  LeaseLostError,
  TransientError,
  type BatchContext,
  type DeadLetter,
  type StreamMessage,
  type Subscription,
} from '@pylon/kit/ports/stream';
import { BLOCK_MS, connect, decode, FENCED, sleep, streamsOf, type Entry, type RedisConnectionOptions } from './stream.redis-wire.js';
import { shutdown } from './connection.redis.js';

/** What a member needs of its stream: the shared command connection, key names, settings and the dead-letter publish. */
export interface MemberDeps {
  connection: RedisConnectionOptions;
  /** The stream's command connection (renewals and acknowledgements). */
  redis: Redis;
  keyOf(topic: string): string;
  topicOf(key: string): string;
  claimIdleMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  publish(topic: string, messages: StreamMessage[]): Promise<void>;
}

/** The subscription's own choices (topics checked, defaults applied). */
export interface MemberSettings {
  topics: readonly string[];
  group: string;
  maxBatch: number;
  maxWaitMs: number;
  deadLetter: { topic: string; maxAttempts: number } | undefined;
  handler: (batch: StreamMessage[], context: BatchContext) => Promise<void>;
}

/** This member's hold on a batch: renewed in the background and on `heartbeat()`, until `release()`. */
interface Hold {
  context: BatchContext;
  lost(): boolean;
  release(): void;
}

export class RedisMember implements Subscription {
  private readonly member: string;
  private readonly reader: Redis;
  private stopping = false;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly deps: MemberDeps,
    private readonly s: MemberSettings,
    private readonly onClosed: () => void,
  ) {
    this.member = `${s.group}:${randomUUID()}`;
    this.reader = connect(deps.connection, 'pylon-stream-reader', true);
    this.loop = this.run().catch(() => {
      this.running = false;
    });
  }

  alive(): boolean {
    return this.running && !this.stopping;
  }

  async close(): Promise<void> {
    if (this.stopping) return this.loop;
    this.stopping = true;
    await this.loop;
    this.onClosed();
    await shutdown(this.reader);
  }

  /** Claims idle entries first (at most every min(claimIdleMs, 5 s)), else reads new ones; until closed. */
  private async run(): Promise<void> {
    let lastClaim = 0;
    while (!this.stopping) {
      try {
        let handled = false;
        if (Date.now() - lastClaim >= Math.min(this.deps.claimIdleMs, 5_000)) {
          lastClaim = Date.now();
          handled = await this.claimStale();
        }
        if (handled || this.stopping) continue;
        await this.handleNew();
      } catch (e) {
        if (this.stopping) break;
        this.deps.connection.onError?.(e instanceof Error ? e : new Error(String(e)));
        await sleep(this.deps.retryBaseMs * 10);
      }
    }
  }

  /** Handles what other members left idle, topic by topic; true when there was any. */
  private async claimStale(): Promise<boolean> {
    let handled = false;
    for (const t of this.s.topics) {
      const stale = await this.claim(t);
      if (stale.length) {
        handled = true;
        if (!(await this.handle(t, stale))) break;
      }
    }
    return handled;
  }

  /** Reads new entries and handles them topic by topic; every topic's entries are held from the read on, not only while their turn runs. */
  private async handleNew(): Promise<void> {
    const read = (await this.readNew()).filter(([, entries]) => entries.length > 0);
    const holds = read.map(([key, entries]) =>
      this.hold(
        this.deps.topicOf(key),
        entries.map(([id]) => id),
      ),
    );
    try {
      for (let i = 0; i < read.length; i++) if (!(await this.handle(this.deps.topicOf(read[i]![0]), read[i]![1], holds[i]))) break;
    } finally {
      for (const h of holds) h.release();
    }
  }

  /** Entries idle in other members (crashed, or gone without committing), oldest first. */
  private async claim(topic: string): Promise<Entry[]> {
    const { group } = this.s;
    const [, entries] = (await this.reader.call(
      'XAUTOCLAIM',
      this.deps.keyOf(topic),
      group,
      this.member,
      this.deps.claimIdleMs,
      '0-0',
      'COUNT',
      this.s.maxBatch,
    )) as [string, Entry[]];
    return entries.filter((e) => Array.isArray(e[1])); // deleted entries come back as null fields
  }

  private async readNew(): Promise<[string, Entry[]][]> {
    const { maxBatch, maxWaitMs } = this.s;
    const first = await this.readGroup(maxBatch, BLOCK_MS);
    if (maxWaitMs === 0 || first.length === 0) return first;
    // Fill the batch for up to maxWaitMs (fewer, larger batches under a trickle).
    const byKey = new Map(first.map(([k, e]) => [k, [...e]]));
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const size = Math.max(...[...byKey.values()].map((e) => e.length));
      const left = deadline - Date.now();
      if (size >= maxBatch || left <= 0 || this.stopping) break;
      const more = await this.readGroup(maxBatch - size, Math.max(1, Math.min(left, BLOCK_MS)));
      for (const [k, e] of more) byKey.set(k, [...(byKey.get(k) ?? []), ...e]);
    }
    return [...byKey.entries()];
  }

  /** One XREADGROUP of new entries over every topic. */
  private async readGroup(count: number, blockMs: number): Promise<[string, Entry[]][]> {
    const keys = this.s.topics.map((t) => this.deps.keyOf(t));
    return streamsOf(
      await this.reader.call('XREADGROUP', 'GROUP', this.s.group, this.member, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...keys, ...keys.map(() => '>')),
    );
  }

  /** Renews (or acknowledges) `ids` if this member still owns them all; false once another does. */
  private async fenced(topic: string, mode: 'renew' | 'ack', ids: string[]): Promise<boolean> {
    return (await this.deps.redis.call('EVAL', FENCED, 1, this.deps.keyOf(topic), this.s.group, this.member, mode, ...ids)) === 1;
  }

  private hold(topic: string, ids: string[]): Hold {
    let lost = false;
    const renew = async () => {
      if (!lost && !(await this.fenced(topic, 'renew', ids))) lost = true;
    };
    const timer = setInterval(() => void renew().catch(() => undefined), Math.max(10, Math.floor(this.deps.claimIdleMs / 3)));
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
  private async handle(
    topic: string,
    entries: Entry[],
    held = this.hold(
      topic,
      entries.map(([id]) => id),
    ),
  ): Promise<boolean> {
    try {
      return await this.attempts(topic, entries, held);
    } finally {
      held.release();
    }
  }

  private async attempts(topic: string, entries: Entry[], held: Hold): Promise<boolean> {
    const messages = entries.map(([, fields]) => decode(fields, topic));
    const ids = entries.map(([id]) => id);
    const dl = this.s.deadLetter;
    let attempt = 0;
    for (;;) {
      try {
        await this.s.handler(messages, held.context);
        // Fenced: entries another member claimed meanwhile are its to acknowledge.
        await this.fenced(topic, 'ack', ids);
        return true;
      } catch (err) {
        // Taken over (this member stalled past claimIdleMs): the new owner handles the batch.
        if (isLeaseLost(err) || held.lost()) return true;
        attempt++;
        if (dl && !isTransientError(err) && attempt >= dl.maxAttempts) return this.deadLetter(topic, entries, messages, err, attempt, dl.topic);
        if (this.stopping) return false;
        await sleep(Math.min(this.deps.retryMaxMs, this.deps.retryBaseMs * 2 ** Math.min(attempt - 1, 30)));
        if (this.stopping) return false;
      }
    }
  }

  /** A batch that failed maxAttempts times: one message at a time to find the culprit; a single message goes to the dead-letter topic and is acknowledged. */
  private async deadLetter(topic: string, entries: Entry[], messages: StreamMessage[], err: unknown, attempt: number, dlTopic: string): Promise<boolean> {
    if (entries.length > 1) {
      for (const e of entries) if (!(await this.handle(topic, [e]))) return false;
      return true;
    }
    const [id] = entries[0]!;
    const m = messages[0]!;
    const letter: DeadLetter = {
      topic,
      group: this.s.group,
      position: id,
      key: m.key ?? null,
      value: m.value,
      timestamp: m.timestamp ?? 0,
      error: err instanceof Error ? err.message.slice(0, 2000) : String(err).slice(0, 2000),
      attempts: attempt,
      dead_lettered_at: Date.now(),
    };
    await this.deps.publish(dlTopic, [{ ...(m.key !== undefined ? { key: m.key } : {}), value: letter, timestamp: letter.dead_lettered_at }]);
    await this.fenced(topic, 'ack', [id]);
    return true;
  }
}
