/**
 * The ids a report reads from the telemetry before its rows: the distinct devices, playlists and
 * schedules of its scope (whose names are looked up), and which ids the account recorded.
 *
 * Recorded ids: which device and media ids an account's own telemetry names, at any time: a media id that
 * played, a device id that played or pinged. A report may name a file or device deleted since
 * (the proof of play of a finished campaign) as long as the caller's account recorded it; another
 * account's ids are never found here, so tenancy holds.
 *
 * Read from the day rollups (003 play_rollup_day, 009 device_rollup_day): they have no TTL (the
 * raw tables' retention drops old rows, the rollups keep the history) and hold one row per
 * account, device, file and day, so one query answers for every id at once, at most one row per id.
 * The play rollup counts completed plays, the only plays a report lists.
 */
import type { AnalyticsStore, SqlParams } from '@pylon/kit';

export interface RecordedIds {
  devices: Set<string>;
  media: Set<string>;
}

/** The ids among `deviceIds` / `mediaIds` the account's telemetry names (one bounded query). */
export async function selectRecordedIds(
  store: AnalyticsStore,
  accountId: string,
  ids: { deviceIds: readonly string[]; mediaIds: readonly string[] },
): Promise<RecordedIds> {
  const out: RecordedIds = { devices: new Set(), media: new Set() };
  const parts: string[] = [];
  const params: SqlParams = { acc: accountId };
  if (ids.deviceIds.length) {
    params.devices = [...ids.deviceIds];
    for (const table of ['play_rollup_day', 'device_rollup_day'])
      parts.push(
        `SELECT 'device' AS kind, device_id AS id FROM ${table} WHERE account_id = {acc:String} AND has({devices:Array(String)}, device_id) GROUP BY device_id`,
      );
  }
  if (ids.mediaIds.length) {
    params.media = [...ids.mediaIds];
    parts.push(
      `SELECT 'media' AS kind, file_id AS id FROM play_rollup_day WHERE account_id = {acc:String} AND has({media:Array(String)}, file_id) GROUP BY file_id`,
    );
  }
  if (parts.length === 0) return out;
  const limit = 2 * ids.deviceIds.length + ids.mediaIds.length;
  const rows = await store.query<{ kind: string; id: string }>(`SELECT kind, id FROM (${parts.join('\nUNION ALL\n')}) LIMIT ${limit}`, params);
  for (const r of rows) (r.kind === 'device' ? out.devices : out.media).add(r.id);
  return out;
}

/** The distinct device ids of `table`'s rows in a report's scope (the account, the range, its filters), at most `limit`. */
export async function selectDistinctDevices(
  store: AnalyticsStore,
  table: 'play_logs' | 'ping_logs' | 'impressions' | 'event_logs',
  scope: { where: string; params: SqlParams },
  limit: number,
): Promise<string[]> {
  const rows = await store.query<{ device_id: string }>(
    `SELECT DISTINCT device_id FROM ${table} WHERE ${scope.where} LIMIT ${Math.floor(limit)}`,
    scope.params,
  );
  return rows.map((r) => r.device_id);
}

/** The distinct non-empty playlist and schedule ids of the plays in a report's scope, at most `limit` of each (one scan). */
export async function selectPlaybackIds(
  store: AnalyticsStore,
  scope: { where: string; params: SqlParams },
  limit: number,
): Promise<{ playlists: string[]; schedules: string[] }> {
  const n = Math.floor(limit);
  const [row] = await store.query<{ pl: string[]; sc: string[] }>(
    `SELECT groupUniqArrayIf(${n})(playlist_id, playlist_id != '') AS pl, groupUniqArrayIf(${n})(schedule_id, schedule_id != '') AS sc FROM play_logs WHERE ${scope.where}`,
    scope.params,
  );
  return { playlists: row?.pl ?? [], schedules: row?.sc ?? [] };
}
