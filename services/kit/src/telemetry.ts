/**
 * Telemetry topics and their records: what producers (devices, the edges) publish to the stream
 * and the analytics ingest writes to the analytics store. Records are snake_case rows of the
 * analytics tables (services/kit/migrations/analytics), so the ingest copies them as they are.
 */

export const TOPICS = {
  pings: 'telemetry.pings',
  plays: 'telemetry.plays',
  events: 'telemetry.events',
  impressions: 'telemetry.impressions',
  audit: 'audit.events',
} as const;
export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/** Where messages the ingest keeps failing on go (DeadLetter values); the ingest copies them to `dead_letters`. */
export const DEAD_LETTER_TOPIC = 'telemetry.dead-letter';

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
  /** When the file left the screen; null when the player did not say (columns of migration 007: absent = the table's default). */
  end_timestamp?: string | null;
  /** completed | skipped | failed (default completed). Play statistics and rollups count completed plays only. */
  status?: string;
  /** The server's clock minus the player's, in ms, as the player knew it; null when not reported. */
  clock_offset_ms?: number | null;
  /** The template zone (module id) that showed the file; '' for a full-screen playlist. */
  zone_id?: string;
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

export { BufferedPublisher, packRecords, recordsOf, type PackedRecords, type PublisherOptions, type PublisherStats } from './telemetry-publisher.js';
export { createFileSpool, type Spool, type SpooledBatch } from './telemetry-spool.js';
export { telemetryMetrics, type TelemetryMetrics } from './telemetry-metrics.js';
