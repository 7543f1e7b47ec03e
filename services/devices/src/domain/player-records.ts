/**
 * What a player reports in batches (POST /player/{key}/playlogs, /events, /impressions): proof of
 * play, its own events and audience detections. Invariants:
 * - A batch holds 1..MAX_PLAYER_BATCH records; a batch with one bad record is refused whole (400
 *   naming the field as `[index].field`), so a player never has to guess which half was kept.
 * - Timestamps lie within [now - maxAgeDays, now + MAX_FUTURE_SKEW_MS]: older records would land
 *   in partitions retention already dropped; later ones are a wrong clock.
 * - Every record gets a stable id: the client's `id` when given, else a digest of its content, so a
 *   retried batch produces the same ids and collapses to one row in the store (ReplacingMergeTree).
 *   Ids are scoped by the device in the digest and in the store's sorting key, so one device cannot
 *   collapse another's rows.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@pylon/kit';
import { AGE_RANGES, GENDERS, MAX_CLOCK_OFFSET_MS, PLAY_STATUSES, SENSORS } from './player-records.constants.js';
import { fastRecord } from './player-records.fast.js';
import { assertPlainJson, parseInput } from './validation.js';

/** Largest batch one request may carry. */
export const MAX_PLAYER_BATCH = 1000;
/** How far ahead of the service's clock a record may be stamped (player clocks drift). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
/** Default age limit of a record (days); PLAYER_RECORD_MAX_AGE_DAYS overrides it. */
export const DEFAULT_MAX_AGE_DAYS = 90;
/** Properties of one event, as JSON text. */
export const MAX_EVENT_PROPERTIES_BYTES = 16_384;

export { AGE_RANGES, GENDERS, MAX_CLOCK_OFFSET_MS, PLAY_STATUSES, SENSORS };

const clientId = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be 1 to 100 letters, digits or _.:-')
  .optional();
const ref = z.string().trim().min(1).max(200);
const optionalRef = z.string().trim().max(200).nullable().optional();
const timestamp = z.string().max(40).datetime({ offset: true });
const upperEnum = <T extends readonly [string, ...string[]]>(values: T) => z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(values));
const lowerEnum = <T extends readonly [string, ...string[]]>(values: T) => z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(values));

const playLogSchema = z
  .object({
    id: clientId,
    timestamp,
    file_id: ref,
    /** Seconds the file was on screen. */
    duration: z.number().finite().min(0).max(86_400),
    type: z.string().trim().min(1).max(50),
    playlist_id: optionalRef,
    schedule_id: optionalRef,
    /** When the file left the screen (UTC); not before `timestamp`. */
    end_timestamp: timestamp.optional(),
    /** completed (the default), skipped or failed. */
    status: lowerEnum(PLAY_STATUSES).optional(),
    /** The server's clock minus the player's (ms), as the player last learned it from a ping's `server_time`. */
    clock_offset_ms: z.number().finite().min(-MAX_CLOCK_OFFSET_MS).max(MAX_CLOCK_OFFSET_MS).optional(),
    /** The template zone (module id) that showed the file; absent for a full-screen playlist. */
    zone_id: optionalRef,
  })
  .strict();

const eventSchema = z
  .object({
    id: clientId,
    timestamp: timestamp.optional(),
    session_id: z.string().trim().max(200).nullable().optional(),
    event_name: z.string().trim().min(1).max(200),
    properties: z.record(z.string().max(200), z.unknown()).nullable().optional(),
    latitude: z.number().min(-90).max(90).nullable().optional(),
    longitude: z.number().min(-180).max(180).nullable().optional(),
  })
  .strict();

const impressionSchema = z
  .object({
    id: clientId,
    timestamp,
    sensor: lowerEnum(SENSORS),
    gender: upperEnum(GENDERS).optional(),
    age_range: upperEnum(AGE_RANGES).nullable().optional(),
    /** Seconds the visitor was detected. */
    dwell_time: z.number().finite().min(0).max(86_400),
    visitor_id: z.string().trim().max(200).nullable().optional(),
    /** The file on screen during the detection, when the player knows it. */
    file_id: optionalRef,
    latitude: z.number().min(-90).max(90).nullable().optional(),
    longitude: z.number().min(-180).max(180).nullable().optional(),
  })
  .strict();

export type PlayLogInput = z.infer<typeof playLogSchema>;
export type EventInput = z.infer<typeof eventSchema>;
export type ImpressionInput = z.infer<typeof impressionSchema>;

export const PLAYER_RECORD_SCHEMAS = { playlogs: playLogSchema, events: eventSchema, impressions: impressionSchema } as const;
export type PlayerRecordKind = keyof typeof PLAYER_RECORD_SCHEMAS;

export interface TimeWindow {
  now: number;
  maxAgeDays: number;
}

/** Refuses (413) a batch of more than MAX_PLAYER_BATCH records: the player API does so before charging its records. */
export function refuseOversizedBatch(body: unknown): void {
  if (Array.isArray(body) && body.length > MAX_PLAYER_BATCH)
    throw new AppError('PAYLOAD_TOO_LARGE', `a batch holds at most ${MAX_PLAYER_BATCH} records`, { field: 'body' });
}

/** Parses a batch body: an array of 1..MAX_PLAYER_BATCH records of `kind`; 400 naming `[i].field` otherwise. */
export function parseBatch<K extends PlayerRecordKind>(kind: K, body: unknown, window: TimeWindow): z.infer<(typeof PLAYER_RECORD_SCHEMAS)[K]>[] {
  if (!Array.isArray(body)) throw new AppError('BAD_USER_INPUT', `the body must be a JSON array of ${kind} records`, { field: 'body' });
  if (body.length === 0) throw new AppError('BAD_USER_INPUT', 'the batch is empty', { field: 'body' });
  refuseOversizedBatch(body);
  const schema = PLAYER_RECORD_SCHEMAS[kind];
  const oldest = window.now - window.maxAgeDays * 86_400_000;
  const latest = window.now + MAX_FUTURE_SKEW_MS;
  const seen = new Set<string>();
  const texts = { oldest: new Date(oldest).toISOString(), latest: new Date(latest).toISOString() };
  const bounds = isCanonicalIso(texts.oldest) && isCanonicalIso(texts.latest) ? texts : undefined;
  return body.map((raw, i) => {
    if (kind === 'events' && raw !== null && typeof raw === 'object') {
      // Checked on the raw input: parsing would silently drop an own `__proto__` key.
      assertPlainJson((raw as { properties?: unknown }).properties ?? null, `[${i}].properties`, 8);
    }
    // The hand-written check answers zod's exact result for a valid record; anything else goes to zod (its errors name the field).
    const r = (fastRecord(kind, raw) ?? parseInput(schema, raw, `[${i}]`)) as z.infer<(typeof PLAYER_RECORD_SCHEMAS)[K]>;
    if (r.timestamp !== undefined) {
      // Canonical UTC stamps (what players send) compare as text, in time order; others are parsed.
      const canonical = bounds !== undefined && isCanonicalIso(r.timestamp);
      if (canonical ? r.timestamp < bounds.oldest : Date.parse(r.timestamp) < oldest)
        throw new AppError('BAD_USER_INPUT', `timestamp is older than ${window.maxAgeDays} days`, { field: `[${i}].timestamp` });
      if (canonical ? r.timestamp > bounds.latest : Date.parse(r.timestamp) > latest)
        throw new AppError('BAD_USER_INPUT', 'timestamp is more than 5 minutes in the future', { field: `[${i}].timestamp` });
    }
    const end = (r as { end_timestamp?: string }).end_timestamp;
    if (end !== undefined && r.timestamp !== undefined) {
      const endMs = Date.parse(end);
      if (endMs < Date.parse(r.timestamp)) throw new AppError('BAD_USER_INPUT', 'end_timestamp is before timestamp', { field: `[${i}].end_timestamp` });
      if (endMs > latest) throw new AppError('BAD_USER_INPUT', 'end_timestamp is more than 5 minutes in the future', { field: `[${i}].end_timestamp` });
    }
    if (r.id !== undefined) {
      if (seen.has(r.id)) throw new AppError('BAD_USER_INPUT', `id '${r.id}' appears twice in the batch`, { field: `[${i}].id` });
      seen.add(r.id);
    }
    return r;
  });
}

/** The stored id: the client's, else a digest of the device and the record, so a retry maps to the same row. */
export function recordId(deviceId: string, kind: PlayerRecordKind, record: { id?: string | undefined }): string {
  if (record.id !== undefined) return record.id;
  const digest = createHash('sha256')
    .update(`${kind}\n${deviceId}\n${JSON.stringify(record)}`)
    .digest('base64url');
  return `d-${digest.slice(0, 32)}`;
}

/** Event properties as JSON text, bounded. */
export function propertiesText(properties: Record<string, unknown> | null | undefined, field: string): string {
  const text = JSON.stringify(properties ?? {});
  if (Buffer.byteLength(text) > MAX_EVENT_PROPERTIES_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', `properties are limited to ${MAX_EVENT_PROPERTIES_BYTES} bytes of JSON`, { field });
  return text;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ`, as `toISOString` writes it. For a stamp that passed the schema's
 * datetime check (a real date and time), such text is its own millisecond-precision form, and two
 * of them compare as text in time order.
 */
export const isCanonicalIso = (t: string): boolean => t.length === 24 && t.charCodeAt(23) === 90 /* Z */ && t.charCodeAt(19) === 46; /* . */

/** ISO timestamp in the store's millisecond precision (a validated canonical stamp is already that). */
export const isoMillis = (t: string | number): string =>
  typeof t === 'string' && isCanonicalIso(t) ? t : new Date(typeof t === 'number' ? t : Date.parse(t)).toISOString();
