/**
 * A player's batch of play logs, events or impressions -> the telemetry stream, acknowledged only
 * once the stream holds it (the publisher's `hold`): a 202 means the batch survives a crash, a
 * failure means nothing was promised and the player retries the same batch (its ids, or the
 * content digests, make the retry collapse in the store).
 */
import { AppError, validityAt, windowOf, type EventLogRecord, type ValidityWindow, type ImpressionRecord, type PlayLogRecord } from '@pylon/kit';
import type { Device } from '../../shared/device.repository.js';
import { isoMillis, parseBatch, propertiesText, recordId, type PlayerRecordKind } from '../../domain/player-records.js';
import type { DevicesRuntime } from '../../runtime.js';
import type { MediaFacts } from '../../ports/media-directory.js';

export interface IngestResult {
  /** Records now held (all of the batch). */
  accepted: number;
  /** The stored id of each record, in the batch's order (the client's `id` when it gave one). */
  ids: string[];
  /** Play logs only: ids whose file_id named no media file of the account (kept, flagged). */
  unknown_file_ids?: string[];
  /**
   * Play logs only: ids of plays that started outside their file's validity window (content expiry):
   * refused, not stored and never counted; `accepted` does not include them. The player need not resend them.
   */
  outside_validity_ids?: string[];
}

type IngestDeps = Pick<DevicesRuntime, 'now' | 'settings' | 'media' | 'plays' | 'events' | 'heldEvents' | 'impressions'>;

const notConfigured = () => new AppError('UNAVAILABLE', 'telemetry ingestion is not configured in this deployment');
const window = (rt: IngestDeps) => ({ now: rt.now(), maxAgeDays: rt.settings.playerRecordMaxAgeDays });

export async function ingestPlayLogs(rt: IngestDeps, device: Device, body: unknown): Promise<IngestResult> {
  const batch = parseBatch('playlogs', body, window(rt));
  if (!rt.plays) throw notConfigured();
  const fileIds = new Set<string>();
  for (const p of batch) fileIds.add(p.file_id);
  const files = rt.media ? await rt.media.files(device.accountId, [...fileIds]) : new Map<string, MediaFacts>();
  // Each file's validity window once (a batch names a few files many times); none for an unknown file.
  const windows = new Map<string, ValidityWindow>();
  for (const [id, file] of files) windows.set(id, windowOf(file.validFrom, file.validUntil));
  const unknown = new Set<string>();
  const outside: string[] = [];
  const records: PlayLogRecord[] = [];
  for (const p of batch) {
    const name = files.get(p.file_id)?.name;
    if (name === undefined) unknown.add(p.file_id);
    const id = recordId(device.id, 'playlogs', p);
    const timestamp = isoMillis(p.timestamp);
    const w = windows.get(p.file_id);
    // A play that started while its file was expired or not yet valid should not have happened: refused,
    // so no report counts it (docs/fleet-operations.md, Content expiry, says why it is refused, not flagged).
    if (w && (w.validFrom !== null || w.validUntil !== null) && validityAt(w, Date.parse(timestamp)) !== 'VALID') {
      outside.push(id);
      continue;
    }
    records.push({
      id,
      account_id: device.accountId,
      device_id: device.id,
      file_id: p.file_id,
      file_name: name ?? '',
      timestamp,
      duration: p.duration,
      type: p.type,
      playlist_id: p.playlist_id ?? '',
      schedule_id: p.schedule_id ?? '',
      file_known: name === undefined ? 0 : 1,
      end_timestamp: p.end_timestamp === undefined ? null : isoMillis(p.end_timestamp),
      status: p.status ?? 'completed',
      clock_offset_ms: p.clock_offset_ms === undefined ? null : Math.round(p.clock_offset_ms),
      zone_id: p.zone_id ?? '',
    });
  }
  if (records.length) await rt.plays.hold(records);
  return {
    accepted: records.length,
    ids: records.map((r) => r.id),
    unknown_file_ids: [...unknown],
    ...(outside.length ? { outside_validity_ids: outside } : {}),
  };
}

export async function ingestEvents(rt: IngestDeps, device: Device, body: unknown): Promise<IngestResult> {
  const now = rt.now();
  const batch = parseBatch('events', body, window(rt));
  if (!rt.events) throw notConfigured();
  const records: EventLogRecord[] = batch.map((e, i) => ({
    id: recordId(device.id, 'events', e),
    account_id: device.accountId,
    device_id: device.id,
    session_id: e.session_id ?? '',
    event_name: e.event_name,
    timestamp: isoMillis(e.timestamp ?? now),
    properties: propertiesText(e.properties, `[${i}].properties`),
    latitude: e.latitude ?? device.location?.latitude ?? null,
    longitude: e.longitude ?? device.location?.longitude ?? null,
  }));
  await (rt.heldEvents ?? rt.events).hold(records);
  return { accepted: records.length, ids: records.map((r) => r.id) };
}

export async function ingestImpressions(rt: IngestDeps, device: Device, body: unknown): Promise<IngestResult> {
  const batch = parseBatch('impressions', body, window(rt));
  if (!rt.impressions) throw notConfigured();
  const records: ImpressionRecord[] = batch.map((m) => ({
    id: recordId(device.id, 'impressions', m),
    account_id: device.accountId,
    device_id: device.id,
    file_id: m.file_id ?? '',
    timestamp: isoMillis(m.timestamp),
    sensor: m.sensor,
    dwell_time: m.dwell_time,
    gender: m.gender ?? 'UNKNOWN',
    age_range: m.age_range ?? '',
    visitor_id: m.visitor_id ?? '',
    latitude: m.latitude ?? device.location?.latitude ?? null,
    longitude: m.longitude ?? device.location?.longitude ?? null,
  }));
  await rt.impressions.hold(records);
  return { accepted: records.length, ids: records.map((r) => r.id) };
}

export const INGESTERS: Record<PlayerRecordKind, (rt: IngestDeps, device: Device, body: unknown) => Promise<IngestResult>> = {
  playlogs: ingestPlayLogs,
  events: ingestEvents,
  impressions: ingestImpressions,
};
