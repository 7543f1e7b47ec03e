/**
 * Telemetry topics and their records: what producers (devices, the edges) publish to the stream
 * and the analytics ingest writes to the analytics store. Records are snake_case rows of the
 * analytics tables (services/kit/migrations/analytics), so the ingest copies them as they are.
 */
import { AppError } from './errors.js';
import type { Logger } from './logger.js';
import type { EventStream } from './ports/stream.js';

export const TOPICS = {
  pings: 'telemetry.pings',
  plays: 'telemetry.plays',
  events: 'telemetry.events',
  impressions: 'telemetry.impressions',
  audit: 'audit.events',
} as const;
export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/** Which analytics table each topic lands in. */
export const TOPIC_TABLES: Record<Topic, string> = {
  [TOPICS.pings]: 'ping_logs',
  [TOPICS.plays]: 'play_logs',
  [TOPICS.events]: 'event_logs',
  [TOPICS.impressions]: 'impressions',
  [TOPICS.audit]: 'audit_events',
};

/** Timestamps are ISO strings (the store parses them best-effort). Ids are event ids: replays collapse. */
export interface PingLogRecord {
  id: string;
  account_id: string;
  device_id: string;
  timestamp: string;
  cpu_usage: number;
  memory_usage: number;
  disk_usage: number;
  player_version: string;
  ip_address: string;
  external_ip_address: string;
}

export interface PlayLogRecord {
  id: string;
  account_id: string;
  device_id: string;
  file_id: string;
  file_name: string;
  timestamp: string;
  duration: number;
  type: string;
  playlist_id: string;
  schedule_id: string;
  /** 0 when the file id named no media file of the account when the play was received (kept, flagged). */
  file_known: number;
}

export interface ImpressionRecord {
  id: string;
  account_id: string;
  device_id: string;
  /** '' when the player did not say what was on screen. */
  file_id: string;
  timestamp: string;
  /** motion | face | ble | wifi */
  sensor: string;
  /** Seconds. */
  dwell_time: number;
  /** MALE | FEMALE | UNKNOWN (the spec's AnalyticsGender). */
  gender: string;
  /** The spec's AnalyticsAgeRange value, or ''. */
  age_range: string;
  visitor_id: string;
  latitude: number | null;
  longitude: number | null;
}

export interface EventLogRecord {
  id: string;
  account_id: string;
  device_id: string;
  session_id: string;
  event_name: string;
  timestamp: string;
  /** JSON text. */
  properties: string;
  latitude: number | null;
  longitude: number | null;
}

export interface AuditEventRecord {
  event_id: string;
  account_id: string;
  timestamp: string;
  event_type: string;
  user_id: string;
  user_name: string;
  http_method: string;
  controller_name: string;
  action_name: string;
  ip_address: string;
  response_code: number;
  /** graphql | rest | legacy | player */
  interface: string;
}

/**
 * Buffers records and publishes them in batches (by size and by time), off the request path.
 * `push` never waits on the stream; when the buffer is full the oldest-first batch is flushed
 * and further pushes beyond `maxBuffered` are counted as dropped and logged (telemetry must not
 * take the API down with it). `close` flushes what is left.
 */
export class BufferedPublisher<T extends { id?: string; event_id?: string; account_id: string }> {
  private buffer: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private closed = false;
  dropped = 0;

  constructor(
    private readonly stream: EventStream,
    private readonly topic: Topic,
    private readonly opts: { maxBatch?: number; maxWaitMs?: number; maxBuffered?: number; logger?: Logger } = {},
  ) {}

  push(record: T): void {
    if (this.closed) return;
    if (this.buffer.length >= (this.opts.maxBuffered ?? 50_000)) {
      this.dropped++;
      if (this.dropped === 1 || this.dropped % 1000 === 0)
        this.opts.logger?.error({ topic: this.topic, dropped: this.dropped }, 'telemetry buffer full; records dropped');
      return;
    }
    this.buffer.push(record);
    if (this.buffer.length >= (this.opts.maxBatch ?? 500)) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.opts.maxWaitMs ?? 200);
  }

  /** Publishes everything buffered so far; resolves when the stream accepted it. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return this.inFlight;
    const batch = this.buffer;
    this.buffer = [];
    this.inFlight = this.inFlight
      .then(() =>
        this.stream.publish(
          this.topic,
          batch.map((r) => ({ key: r.account_id, value: r })),
        ),
      )
      .catch((e: unknown) => {
        this.dropped += batch.length;
        this.opts.logger?.error({ err: e, topic: this.topic, records: batch.length }, 'telemetry publish failed');
      });
    return this.inFlight;
  }

  /**
   * Publishes `records` and resolves once the stream holds them (what a 202 promises). Concurrent
   * calls share one stream publish (group commit), so a busy ingestion path makes few, large
   * appends. Rejects with UNAVAILABLE when the stream refuses or the publisher is closed: the
   * caller answers 503 and the player keeps its records.
   */
  hold(records: T[]): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('UNAVAILABLE', 'telemetry is shutting down; retry'));
    if (records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.holding.push({ records, resolve, reject });
      if (!this.holdScheduled) {
        this.holdScheduled = true;
        setImmediate(() => this.commitHeld());
      }
    });
  }

  private holding: { records: T[]; resolve: () => void; reject: (e: Error) => void }[] = [];
  private holdScheduled = false;

  private commitHeld(): void {
    this.holdScheduled = false;
    const waiting = this.holding;
    this.holding = [];
    const messages = waiting.flatMap((w) => w.records.map((r) => ({ key: r.account_id, value: r })));
    this.stream.publish(this.topic, messages).then(
      () => {
        for (const w of waiting) w.resolve();
      },
      (e: unknown) => {
        this.opts.logger?.error({ err: e, topic: this.topic, records: messages.length }, 'telemetry not held; the requests are refused with 503');
        const err = new AppError('UNAVAILABLE', 'telemetry could not be stored now; retry', { retryAfter: 5 });
        for (const w of waiting) w.reject(err);
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
