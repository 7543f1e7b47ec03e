/**
 * Publishes telemetry records to one topic in batches (by size and by time), off the request path,
 * and never loses one silently:
 *
 *   push(record)   fire and forget (pings, tracked events, audit). Buffered in memory; a batch the
 *                  stream refuses goes to the disk spool (when there is one) or back into the
 *                  buffer, and is retried with backoff. Records buffered, queued AND in flight count
 *                  against `maxBuffered` (a hung stream must not pile them up in memory): at the
 *                  bound the waiting ones spill to the spool at once (a blocking fsynced write: the
 *                  producer cannot wait, so the disk is its back-pressure), or without a spool the
 *                  new record is counted lost and logged. `close` waits for the stream at most
 *                  `closeTimeoutMs`, then spools (or counts lost) what is left: a process whose
 *                  shutdown is cut short by its grace period loses nothing silently.
 *   hold(records)  resolves once the records are durably held: accepted by the stream, or (when
 *                  the stream refuses) fsynced to the spool. Without a spool a refusal rejects with
 *                  UNAVAILABLE before anything was promised (the HTTP edge answers 503). The records
 *                  of one hold travel as ONE stream message (a player's request: one log entry, one
 *                  JSON text, instead of one per record; a hold larger than `maxRecordsPerMessage`
 *                  as several), packed (`packRecords`); consumers read every message through
 *                  `recordsOf`.
 *
 * A record that can be held nowhere (no spool and a full buffer, or the spool's disk failing) is
 * counted in `stats.lost` and logged, one line per record, naming its topic and id. Spooled batches
 * are republished oldest first as soon as the stream takes records again (at start too), then
 * deleted. Audit events go through this class like everything else: nothing samples them.
 */
import { AppError } from './errors.js';
import type { Logger } from './logger.js';
import type { EventStream, StreamMessage } from './ports/stream.js';
import type { Spool } from './telemetry-spool.js';

export interface PublisherOptions {
  /** Records per stream publish. Default 500. */
  maxBatch?: number;
  /** Longest a record waits for its batch to fill. Default 200 ms. */
  maxWaitMs?: number;
  /**
   * Records of `push` in memory (buffered, queued and in flight to the stream) at most; beyond, the
   * waiting ones spill to the spool, or, without one, new records are counted lost and logged.
   * Default 50 000.
   */
  maxBuffered?: number;
  /** Longest `close` waits for the stream before it spools (or counts lost) what is left. Default 5 s, within the 15 s shutdown grace. */
  closeTimeoutMs?: number;
  logger?: Logger;
  /** Where records wait while the stream refuses them. */
  spool?: Spool;
  /** First retry delay after the stream refused a batch; doubles per attempt. Default 500 ms. */
  retryBaseMs?: number;
  /** Largest retry delay. Default 30 s. */
  retryMaxMs?: number;
  /**
   * Records of one `hold` per stream message; a larger hold is split. Default 250: a message stays
   * below Kafka's default 1 MB limit for records of up to 4 KB of JSON.
   */
  maxRecordsPerMessage?: number;
}

export interface PublisherStats {
  /** Records the stream accepted (spooled ones included once republished). */
  published: number;
  /** Records written to the spool. */
  spooled: number;
  /** Records held nowhere: each was logged. */
  lost: number;
}

type Keyed = { id?: string; event_id?: string; account_id: string };

/**
 * A held batch as it travels: the field names once, the values every record shares once (a
 * request's account and device, empty optional fields), and one array per record for the rest.
 * About half the bytes of an array of objects, so half the JSON to write, store and read back.
 */
export interface PackedRecords {
  packed: 1;
  columns: string[];
  shared: Record<string, unknown>;
  rows: unknown[][];
}

const isPacked = (v: unknown): v is PackedRecords =>
  typeof v === 'object' &&
  v !== null &&
  (v as PackedRecords).packed === 1 &&
  Array.isArray((v as PackedRecords).columns) &&
  Array.isArray((v as PackedRecords).rows);

/**
 * `records` packed, when they all have the same fields in the same order and no undefined value
 * (which an array could not carry as JSON does); otherwise the array itself.
 */
export function packRecords(records: readonly object[]): PackedRecords | readonly object[] {
  const first = records[0] as Record<string, unknown> | undefined;
  if (!first || records.length < 2) return records;
  const columns = Object.keys(first);
  // An own `__proto__` field cannot be set by assignment (it would set the prototype): left unpacked.
  if (columns.includes('__proto__')) return records;
  // Values are compared by position (the first record's as an array, the others' in for-in order):
  // indexed and for-in reads stay fast where reading one record's field by another's key does not.
  const firstValues = Object.values(first);
  const same = columns.map(() => true);
  for (const r of records as readonly Record<string, unknown>[]) {
    let n = 0;
    for (const k in r) {
      if (k !== columns[n]) return records;
      const v = r[k];
      if (v === undefined) return records;
      if (same[n] && v !== firstValues[n]) same[n] = false;
      n++;
    }
    if (n !== columns.length) return records;
  }
  const shared: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    if (same[i]) shared[c] = firstValues[i];
  });
  const rows = (records as readonly Record<string, unknown>[]).map((r) => {
    const row: unknown[] = [];
    let n = 0;
    for (const k in r) if (!same[n++]) row.push(r[k]);
    return row;
  });
  return { packed: 1, columns, shared, rows };
}

/** The records a telemetry message carries: one record (push, spool), or a held batch (hold), packed or not. */
export function recordsOf(value: unknown): unknown[] {
  if (isPacked(value)) {
    const { columns, shared, rows } = value;
    const isShared = columns.map((c) => Object.hasOwn(shared, c));
    return rows.map((row) => {
      const r: Record<string, unknown> = {};
      let i = 0;
      for (let c = 0; c < columns.length; c++) {
        const k = columns[c]!;
        const v = isShared[c] ? shared[k] : row[i++];
        // As JSON.parse does: an own `__proto__` field, never the prototype.
        if (k === '__proto__') Object.defineProperty(r, k, { value: v, enumerable: true, writable: true, configurable: true });
        else r[k] = v;
      }
      return r;
    });
  }
  return Array.isArray(value) ? value : [value];
}

export class BufferedPublisher<T extends Keyed> {
  readonly stats: PublisherStats = { published: 0, spooled: 0, lost: 0 };
  /** Records waiting for their batch to fill. */
  private buffer: T[] = [];
  /** Full batches waiting for the sender (one publish at a time, in order). */
  private queue: T[][] = [];
  private queued = 0;
  /** The batch the stream holds now (its publish has not answered yet). */
  private inFlight: T[] | null = null;
  /** Records of a refused batch on their way to the spool. */
  private spilling = 0;
  private sending: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** close's deadline passed: what is left was spooled or counted lost. */
  private gaveUp = false;
  /** Whether the spool may hold batches of this topic (set at start and whenever one is written). */
  private spoolPending: boolean;
  private draining: Promise<void> | null = null;
  private holding: { records: T[]; resolve: () => void; reject: (e: Error) => void }[] = [];
  private holdScheduled = false;
  private holdsInFlight = new Set<Promise<void>>();

  constructor(
    private readonly stream: EventStream,
    readonly topic: string,
    private readonly opts: PublisherOptions = {},
  ) {
    this.spoolPending = opts.spool !== undefined;
    if (this.spoolPending) void this.drain();
  }

  /** Records counted as lost so far (kept for callers of the earlier API). */
  get dropped(): number {
    return this.stats.lost;
  }

  /** Records of `push` in this process's memory now: buffered, queued, in flight or being spooled. At most `maxBuffered`. */
  get inMemory(): number {
    return this.buffer.length + this.queued + (this.inFlight?.length ?? 0) + this.spilling;
  }

  private get maxBuffered(): number {
    return this.opts.maxBuffered ?? 50_000;
  }

  /**
   * At most half the bound per batch: whatever is in flight or being spooled, the other half can
   * be spilled in one write when the bound is reached (never one spool file per record).
   */
  private get maxBatch(): number {
    return Math.max(1, Math.min(this.opts.maxBatch ?? 500, Math.ceil(this.maxBuffered / 2)));
  }

  push(record: T): void {
    if (this.closed) return this.afterClose(record);
    if (this.inMemory >= this.maxBuffered) {
      if (!this.opts.spool) return this.lose([record], 'the buffer is full (maxBuffered records in memory or in flight) and there is no spool');
      this.spill();
      if (this.inMemory >= this.maxBuffered) return this.toSpoolNow([record]);
    }
    this.buffer.push(record);
    if (this.buffer.length >= this.maxBatch) this.enqueue();
    else this.timer ??= setTimeout(() => this.enqueue(), this.opts.maxWaitMs ?? 200);
  }

  /** Publishes (or spools) everything buffered so far; resolves when that is settled. */
  flush(): Promise<void> {
    this.enqueue();
    return this.sending ?? Promise.resolve();
  }

  /**
   * Resolves once `records` are durably held (what a 202 promises). Concurrent calls share one
   * stream publish (group commit). Rejects with UNAVAILABLE when neither the stream nor the spool
   * took them, or when the publisher is closed: the caller answers 503 and keeps its records.
   */
  hold(records: T[]): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('UNAVAILABLE', 'telemetry is shutting down; retry', { retryAfter: 5 }));
    if (records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.holding.push({ records, resolve, reject });
      if (!this.holdScheduled) {
        this.holdScheduled = true;
        setImmediate(() => this.commitHeld());
      }
    });
  }

  /**
   * Sends what is buffered, for at most `closeTimeoutMs` (a process's shutdown has a deadline: a
   * broker that answers in 30 s must not take the records with it when the process is killed).
   * What the stream has not taken by then is spooled (or, without a spool, counted lost and logged
   * by id); a publish still running may yet succeed, so those records may arrive twice (the store
   * collapses a replay by id).
   */
  close(): Promise<void> {
    this.closing ??= this.closeWithin(this.opts.closeTimeoutMs ?? 5_000);
    return this.closing;
  }

  private async closeWithin(budgetMs: number): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.holdScheduled) this.commitHeld();
    let deadline: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (deadline = setTimeout(() => resolve('late'), budgetMs)));
    const settled = (async () => {
      await this.flush();
      // Without a spool a refused batch waits in the buffer: retried with backoff until the deadline.
      while (this.buffer.length > 0 && !this.gaveUp) {
        await new Promise((r) => setTimeout(r, this.retryDelay()).unref());
        await this.flush();
      }
      await Promise.all([...this.holdsInFlight]);
      await this.draining;
    })();
    const outcome = await Promise.race([settled, late]);
    clearTimeout(deadline);
    if (outcome !== 'late') return;
    this.gaveUp = true;
    const unsent = [...(this.inFlight ?? []), ...this.queue.flat(), ...this.buffer];
    this.inFlight = null;
    this.queue = [];
    this.queued = 0;
    this.buffer = [];
    this.opts.logger?.warn(
      { topic: this.topic, records: unsent.length, budgetMs },
      'the stream did not take these records before the shutdown deadline; spooled (or lost, logged by id)',
    );
    if (unsent.length === 0) return;
    if (this.opts.spool) this.toSpoolNow(unsent);
    else this.lose(unsent, 'the stream did not take it before the shutdown deadline and there is no spool');
  }

  /** A push after close: spooled (republished by the next process on this spool), or lost and logged. */
  private afterClose(record: T): void {
    if (this.opts.spool) this.toSpoolNow([record]);
    else this.lose([record], 'the publisher is closed');
  }

  /** The buffer becomes a batch for the sender. */
  private enqueue(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length > 0) {
      this.queue.push(this.buffer);
      this.queued += this.buffer.length;
      this.buffer = [];
    }
    if (this.queue.length > 0) this.sending ??= this.sendQueued();
  }

  private async sendQueued(): Promise<void> {
    try {
      for (let batch = this.queue.shift(); batch; batch = this.queue.shift()) {
        this.queued -= batch.length;
        this.inFlight = batch;
        await this.send(batch);
      }
    } finally {
      this.sending = null;
    }
  }

  /** Memory is full: what waits (not what the stream holds now) goes to the spool, at once. */
  private spill(): void {
    const waiting = [...this.queue.flat(), ...this.buffer];
    this.queue = [];
    this.queued = 0;
    this.buffer = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (waiting.length) this.toSpoolNow(waiting);
  }

  /** Writes to the spool before returning (a spool without writeSync: in the background, counted in memory until written). */
  private toSpoolNow(records: T[]): void {
    const spool = this.opts.spool!;
    if (!spool.writeSync) {
      this.spilling += records.length;
      void this.toSpool(records).finally(() => (this.spilling -= records.length));
      return;
    }
    try {
      spool.writeSync(this.topic, records);
    } catch (e) {
      return this.lose(records, 'the spool could not write it', e);
    }
    this.stats.spooled += records.length;
    this.spoolPending = true;
    this.scheduleRetry();
  }

  private messages(records: readonly unknown[]): StreamMessage[] {
    return records.map((r) => ({ key: (r as Keyed).account_id, value: r }));
  }

  private commitHeld(): void {
    this.holdScheduled = false;
    const waiting = this.holding;
    this.holding = [];
    if (waiting.length === 0) return;
    let count = 0;
    for (const w of waiting) count += w.records.length;
    // One message per hold (or per slice of a large one): its records packed into one value, keyed by the first one's account.
    const per = this.opts.maxRecordsPerMessage ?? 250;
    const messages: StreamMessage[] = [];
    for (const w of waiting)
      for (let i = 0; i < w.records.length; i += per) {
        const slice = w.records.length <= per ? w.records : w.records.slice(i, i + per);
        messages.push({ key: slice[0]!.account_id, value: packRecords(slice) });
      }
    const run = (async () => {
      try {
        await this.stream.publish(this.topic, messages);
        this.stats.published += count;
        this.onStreamWorking();
      } catch (e) {
        if (!this.opts.spool) {
          this.opts.logger?.error({ err: e, topic: this.topic, records: count }, 'telemetry not held (no spool): the requests are refused with 503');
          throw new AppError('UNAVAILABLE', 'telemetry could not be stored now; retry', { retryAfter: 5 });
        }
        this.opts.logger?.warn({ err: e, topic: this.topic, records: count }, 'stream refused telemetry; spooled to disk');
        try {
          await this.opts.spool.write(
            this.topic,
            waiting.flatMap((w) => w.records),
          );
        } catch (spoolError) {
          this.opts.logger?.error(
            { err: spoolError, topic: this.topic, records: count },
            'telemetry not held (spool failed): the requests are refused with 503',
          );
          throw new AppError('UNAVAILABLE', 'telemetry could not be stored now; retry', { retryAfter: 5 });
        }
        this.stats.spooled += count;
        this.spoolPending = true;
        this.scheduleRetry();
      }
    })();
    const tracked = run.then(
      () => waiting.forEach((w) => w.resolve()),
      (e: Error) => waiting.forEach((w) => w.reject(e)),
    );
    this.holdsInFlight.add(tracked);
    void tracked.finally(() => this.holdsInFlight.delete(tracked));
  }

  /** Publishes the in-flight `batch`; a refusal sends it to the spool, back into the buffer, or to the log. */
  private async send(batch: T[]): Promise<void> {
    try {
      await this.stream.publish(this.topic, this.messages(batch));
      // Spooled at close's deadline meanwhile: counted there (it may arrive twice; the store collapses it).
      if (this.inFlight !== batch) return;
      this.stats.published += batch.length;
      this.onStreamWorking();
    } catch (e) {
      if (this.inFlight !== batch) return;
      this.opts.logger?.warn({ err: e, topic: this.topic, records: batch.length }, 'stream refused telemetry; it waits and is retried');
      if (this.opts.spool) {
        this.spilling += batch.length;
        this.inFlight = null;
        try {
          return await this.toSpool(batch);
        } finally {
          this.spilling -= batch.length;
        }
      }
      this.inFlight = null;
      if (!this.gaveUp && this.inMemory + batch.length <= this.maxBuffered) {
        this.buffer = batch.concat(this.buffer);
        this.scheduleRetry();
        return;
      }
      this.lose(batch, 'the stream refused it and there is no spool', e);
    } finally {
      if (this.inFlight === batch) this.inFlight = null;
    }
  }

  private async toSpool(batch: T[]): Promise<void> {
    try {
      await this.opts.spool!.write(this.topic, batch);
      this.stats.spooled += batch.length;
      this.spoolPending = true;
      this.scheduleRetry();
    } catch (e) {
      this.lose(batch, 'the spool could not write it', e);
    }
  }

  private lose(records: readonly T[], reason: string, err?: unknown): void {
    this.stats.lost += records.length;
    for (const r of records) {
      this.opts.logger?.error(
        { topic: this.topic, id: r.id ?? r.event_id, account_id: r.account_id, reason, ...(err ? { err } : {}) },
        'telemetry record lost',
      );
    }
  }

  private onStreamWorking(): void {
    this.attempt = 0;
    if (this.spoolPending) void this.drain();
  }

  private retryDelay(): number {
    return Math.min(this.opts.retryMaxMs ?? 30_000, (this.opts.retryBaseMs ?? 500) * 2 ** Math.min(this.attempt++, 20));
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flush().then(() => this.drain());
    }, this.retryDelay());
    this.retryTimer.unref();
  }

  /** Republishes spooled batches oldest first; stops (and schedules a retry) at the first refusal. */
  private drain(): Promise<void> {
    const spool = this.opts.spool;
    if (!spool || !this.spoolPending) return Promise.resolve();
    this.draining ??= (async () => {
      try {
        for (;;) {
          const batch = await spool.next(this.topic);
          if (!batch) {
            this.spoolPending = false;
            return;
          }
          await this.stream.publish(this.topic, this.messages(batch.values));
          this.stats.published += batch.values.length;
          await batch.done();
        }
      } catch (e) {
        this.opts.logger?.warn({ err: e, topic: this.topic }, 'spooled telemetry not republished yet; retried later');
        this.scheduleRetry();
      } finally {
        this.draining = null;
      }
    })();
    return this.draining;
  }
}
