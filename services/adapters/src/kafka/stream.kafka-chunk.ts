/**
 * One chunk of a fetched Kafka batch in the hands of a subscription's handler (stream.kafka.ts):
 * heartbeats while it runs, in-place retries with backoff, the rebalance that abandons it, and the
 * dead-letter path (a failing chunk retried message by message, a failing message published to the
 * dead-letter topic and its offset resolved).
 */
import type { KafkaMessage } from 'kafkajs';
import type { Logger } from '@pylon/kit/logger';
import {
  isLeaseLost,
  isTransientError,
  LeaseLostError,
  type BatchContext,
  type DeadLetter,
  type DeadLetterOptions,
  type StreamMessage,
} from '@pylon/kit/ports/stream';
import { decode, isRebalance, sleep } from './stream.kafka-wire.js';

/** What a subscription's chunks share. */
export interface ChunkSettings {
  group: string;
  handler: (batch: StreamMessage[], context: BatchContext) => Promise<void>;
  deadLetter: DeadLetterOptions | undefined;
  heartbeatIntervalMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  log: Pick<Logger, 'warn'> | undefined;
  /** The stream's own publish, for dead letters. */
  publish(topic: string, messages: StreamMessage[]): Promise<void>;
}

/** Where a chunk comes from and whether its consumer still holds the partition. */
interface Source {
  topic: string;
  partition: number;
  alive: () => boolean;
  heartbeat: () => Promise<void>;
}

/**
 * The hold of one chunk: heartbeats in the background while the handler runs and on the
 * handler's `heartbeat()`. The first rebalance error is kept (`lost`); from then on
 * `heartbeat()` rejects with LeaseLostError and the chunk is abandoned.
 */
function hold(src: Source, intervalMs: number) {
  let lost: unknown;
  const beat = async () => {
    if (lost !== undefined) return;
    try {
      await src.heartbeat();
    } catch (e) {
      if (isRebalance(e)) lost = e;
      else throw e;
    }
  };
  const timer = setInterval(() => void beat().catch(() => undefined), intervalMs);
  timer.unref();
  const context: BatchContext = {
    async heartbeat() {
      await beat().catch(() => undefined); // a broker hiccup: the session outlasts it
      if (lost !== undefined || !src.alive()) throw new LeaseLostError('the partition is being handed to another member', { cause: lost });
    },
  };
  return { context, lost: () => lost, beat, release: () => clearInterval(timer) };
}

type Hold = ReturnType<typeof hold>;

export class ChunkRunner {
  constructor(private readonly s: ChunkSettings) {}

  /**
   * Runs the handler until it succeeds; false when the consumer stops meanwhile. Dead-letters
   * when told. Throws kafkajs's rebalance error when the partition is being handed over.
   */
  async handle(chunk: KafkaMessage[], topic: string, partition: number, alive: () => boolean, heartbeat: () => Promise<void>): Promise<boolean> {
    const src: Source = { topic, partition, alive, heartbeat };
    const held = hold(src, this.s.heartbeatIntervalMs);
    try {
      return await this.attempts(chunk, src, held);
    } finally {
      held.release();
    }
  }

  private async attempts(chunk: KafkaMessage[], src: Source, held: Hold): Promise<boolean> {
    const abandon = () => {
      if (held.lost() !== undefined) throw held.lost();
      return false;
    };
    const dl = this.s.deadLetter;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.s.handler(
          chunk.map((m) => decode(m, src.topic)),
          held.context,
        );
        if (held.lost() !== undefined) return abandon();
        return true;
      } catch (e) {
        if (isLeaseLost(e) || held.lost() !== undefined) return abandon();
        if (dl && !isTransientError(e) && attempt >= dl.maxAttempts) {
          if (chunk.length > 1) {
            // Find the culprit: each message alone, each with its own attempts.
            for (const m of chunk) if (!(await this.handle([m], src.topic, src.partition, src.alive, src.heartbeat))) return false;
            return true;
          }
          await this.deadLetter(dl, chunk[0]!, src, e, attempt);
          return true;
        }
        this.s.log?.warn({ err: e, group: this.s.group, topic: src.topic, attempt }, 'stream handler failed; retrying in place');
        const outcome = await this.backOff(attempt, src, held);
        if (outcome === 'lost') return abandon();
        if (outcome === 'stopped') return false;
      }
    }
  }

  /**
   * Waits before the next attempt in steps, heartbeating, so the group keeps this member through a
   * long outage; a rebalance meanwhile ends the retries (the partition may go to another member).
   */
  private async backOff(attempt: number, src: Source, held: Hold): Promise<'again' | 'lost' | 'stopped'> {
    let left = Math.min(this.s.retryMaxMs, this.s.retryBaseMs * 2 ** Math.min(attempt - 1, 20));
    while (left > 0) {
      if (!src.alive()) return 'stopped';
      const step = Math.min(left, 1_000);
      await sleep(step);
      left -= step;
      await held.beat().catch(() => undefined);
      if (held.lost() !== undefined) return 'lost';
    }
    return src.alive() ? 'again' : 'stopped';
  }

  /** Publishes a message that failed `attempts` times alone to the dead-letter topic. */
  private async deadLetter(dl: DeadLetterOptions, m: KafkaMessage, src: Source, e: unknown, attempts: number): Promise<void> {
    const d = decode(m, src.topic);
    const letter: DeadLetter = {
      topic: src.topic,
      group: this.s.group,
      position: `${src.partition}:${m.offset}`,
      key: d.key ?? null,
      value: d.value,
      timestamp: d.timestamp ?? Date.now(),
      error: e instanceof Error ? e.message.slice(0, 2000) : String(e).slice(0, 2000),
      attempts,
      dead_lettered_at: Date.now(),
    };
    await this.s.publish(dl.topic, [{ ...(d.key !== undefined ? { key: d.key } : {}), value: letter }]);
  }
}
