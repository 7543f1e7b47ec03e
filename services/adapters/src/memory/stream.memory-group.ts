/**
 * One consumer group on one topic of the in-process bus (stream.memory.ts): its offset, the
 * subscriptions taking turns (round robin, one batch in flight), the delivery loop with its
 * partial-batch wait, retries with backoff, and the dead-letter path (a failing batch retried one
 * message at a time, a failing message published to the dead-letter topic and skipped).
 */
import { HELD_BATCH, isTransientError, type BatchContext, type DeadLetter, type DeadLetterOptions, type StreamMessage } from '@pylon/kit/ports/stream';
import { decode, type StreamLog, type TopicLog } from './stream.memory-topic.js';

/** One subscription's share of a group on one topic. */
export interface ConsumerState {
  handler: (batch: StreamMessage[], context: BatchContext) => Promise<void>;
  maxBatchSize: number;
  maxWaitMs: number;
  deadLetter: DeadLetterOptions | undefined;
  closed: boolean;
  inFlight: Promise<unknown> | null;
}

/** What every group of one bus shares. */
export interface GroupSettings {
  /** Whether the bus is closed (groups stop after their batch in flight). */
  closed(): boolean;
  retryBaseMs: number;
  retryMaxMs: number;
  onHandlerError: ((error: unknown, info: { topic: string; group: string; attempt: number; size: number }) => void) | undefined;
  /** Where offsets are committed after each batch; none without a log. */
  log: StreamLog | undefined;
  /** The topic a dead letter goes to (created on first use). */
  topicOf(name: string): TopicLog<ConsumerGroup>;
}

export class ConsumerGroup {
  readonly consumers: ConsumerState[] = [];
  private turn = 0;
  /** Offsets below this are delivered one at a time (a batch among them kept failing). */
  private isolateUntil = 0;
  private running = false;
  loop: Promise<void> | null = null;
  /** Wakes the loop from any wait (consumer change, close). */
  wake: (() => void) | null = null;

  constructor(
    readonly name: string,
    private readonly topic: TopicLog<ConsumerGroup>,
    /** Absolute offset of the next message this group has not consumed. */
    public offset: number,
    private readonly s: GroupSettings,
  ) {}

  /** Adds a subscription's consumer, starting the delivery loop if it is not running. */
  join(c: ConsumerState): void {
    this.consumers.push(c);
    if (!this.running) this.loop = this.run();
    else this.wake?.();
  }

  /** Removes a consumer once its batch in flight is done (and the loop, when it was the last). */
  async leave(c: ConsumerState): Promise<void> {
    if (c.closed) return;
    c.closed = true;
    const i = this.consumers.indexOf(c);
    if (i >= 0) this.consumers.splice(i, 1);
    this.wake?.();
    if (c.inFlight) await c.inFlight;
    if (this.consumers.length === 0 && this.loop) await this.loop;
  }

  private active(): boolean {
    return !this.s.closed() && this.consumers.length > 0;
  }

  /** Waits for the wake signal, optionally for new data, at most `ms`. */
  private wait(onData: boolean, ms?: number): Promise<void> {
    const t = this.topic;
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        t.dataWaiters.delete(done);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      this.wake = done;
      if (onData) t.dataWaiters.add(done);
      if (ms !== undefined) timer = setTimeout(done, ms);
    });
  }

  private nextConsumer(): ConsumerState | undefined {
    if (this.consumers.length === 0) return undefined;
    this.turn = this.turn % this.consumers.length;
    const c = this.consumers[this.turn];
    this.turn = (this.turn + 1) % this.consumers.length;
    return c;
  }

  private async run(): Promise<void> {
    this.running = true;
    const t = this.topic;
    try {
      while (this.active()) {
        if (t.readable() - this.offset <= 0) {
          await this.wait(true);
          continue;
        }
        // Peek at whose turn it is to size the batch and its partial-batch wait.
        const next = this.consumers[this.turn % this.consumers.length]!;
        if (t.readable() - this.offset < next.maxBatchSize && next.maxWaitMs > 0) {
          const deadline = Date.now() + next.maxWaitMs;
          while (this.active() && t.readable() - this.offset < next.maxBatchSize) {
            const left = deadline - Date.now();
            if (left <= 0) break;
            await this.wait(true, left);
          }
          if (!this.active()) break;
        }
        const size = Math.min(t.readable() - this.offset, next.maxBatchSize);
        const consumed = await this.deliver(size);
        if (consumed === 0) break;
        this.offset += consumed;
        if (this.s.log) {
          // A commit that fails costs a redelivery after a restart, never a loss.
          await this.s.log.commit(t.name, this.name, this.offset).catch(() => undefined);
        }
        t.trim();
        t.pump();
      }
    } finally {
      this.running = false;
      this.loop = null;
    }
  }

  /** Hands messages [offset, offset + size) to consumers until one succeeds; how many were consumed, 0 when stopped. */
  private async deliver(size: number): Promise<number> {
    const t = this.topic;
    for (let attempt = 1; ; attempt++) {
      const c = this.nextConsumer();
      if (!c || this.s.closed()) return 0;
      const n = this.offset < this.isolateUntil ? 1 : Math.min(size, c.maxBatchSize);
      const batch = t.entriesOf(this.offset, this.offset + n).map((e) => decode(e, t.name));
      const run = (async () => c.handler(batch, HELD_BATCH))(); // one process: no one else takes it over
      c.inFlight = run.catch(() => undefined);
      try {
        await run;
        return n;
      } catch (err) {
        try {
          this.s.onHandlerError?.(err, { topic: t.name, group: this.name, attempt, size: n });
        } catch {
          /* a failing reporter must not stop delivery */
        }
        if (!this.active()) return 0;
        const dl = c.deadLetter;
        if (dl && !isTransientError(err) && attempt >= dl.maxAttempts) {
          if (n > 1) {
            // Find the culprit: the same messages again, one at a time, each with its own attempts.
            this.isolateUntil = this.offset + n;
            attempt = 0;
            continue;
          }
          await this.deadLetter(dl, err, attempt);
          return 1;
        }
        const delay = Math.min(this.s.retryMaxMs, this.s.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
        await this.wait(false, delay);
        if (!this.active()) return 0;
      } finally {
        c.inFlight = null;
      }
    }
  }

  /** Publishes the message at the group's offset, which failed `attempts` times alone, to the dead-letter topic. */
  private async deadLetter(dl: DeadLetterOptions, err: unknown, attempts: number): Promise<void> {
    const t = this.topic;
    const entry = t.entriesOf(this.offset, this.offset + 1)[0]!;
    const letter: DeadLetter = {
      topic: t.name,
      group: this.name,
      position: String(this.offset),
      key: entry.key ?? null,
      value: JSON.parse(entry.json),
      timestamp: entry.timestamp,
      error: err instanceof Error ? err.message.slice(0, 2000) : String(err).slice(0, 2000),
      attempts,
      dead_lettered_at: Date.now(),
    };
    await this.s.topicOf(dl.topic).append([{ key: entry.key, timestamp: letter.dead_lettered_at, json: JSON.stringify(letter) }]);
  }
}
