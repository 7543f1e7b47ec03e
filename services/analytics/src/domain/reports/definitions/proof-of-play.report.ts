/**
 * Proof of play: every play in the range, one row each, in a stable order (device, start, play id),
 * so two exports of the same range list the same rows and print the same digest. That order is the
 * table's sorting key (account, device, timestamp, id), so the engine streams the rows as it reads
 * them instead of sorting a year of plays in memory (1M rows: ~12 MB instead of ~400 MB). The file name is
 * the one recorded with the play, so it stays for files deleted since. FINAL collapses replayed
 * events (ReplacingMergeTree) not merged yet, so a play is never counted twice.
 */
import type { SqlReport } from '../report.js';
import { deviceName, lookedUpName, scope } from './scope.js';

export const proofOfPlay: SqlReport = {
  kind: 'sql',
  id: 'proof_of_play',
  name: 'Proof of play',
  description:
    'Every play in the range, device by device in time order: when it started (UTC), the device, the file (its name as recorded, kept for deleted files), how long it played, and the playlist and schedule it came from (ids, and their current names; empty once deleted). The totals are the sums of the rows; the SHA-256 digest covers the fixed facts of each play (play, device and file ids, recorded file name, start, duration, playlist and schedule ids; not the names looked up at export), so a re-export of the same plays prints the same digest after renames.',
  filters: { device: true, media: true, interval: true, timeOfDay: true },
  table: 'play_logs',
  deviceColumn: 'device_id',
  playbackNames: true,
  columns: [
    { key: 'start', title: 'Start (UTC)', type: 'datetime', width: 16 },
    { key: 'device_id', title: 'Device ID', type: 'text', width: 14 },
    { key: 'device_name', title: 'Device', type: 'text', width: 16 },
    { key: 'file_id', title: 'File ID', type: 'text', width: 14 },
    { key: 'file_name', title: 'File', type: 'text', width: 18 },
    { key: 'duration', title: 'Duration (s)', type: 'seconds', total: true, width: 9 },
    { key: 'playlist_id', title: 'Playlist ID', type: 'text', width: 12 },
    { key: 'playlist_name', title: 'Playlist', type: 'text', width: 14 },
    { key: 'schedule_id', title: 'Schedule ID', type: 'text', width: 12 },
    { key: 'schedule_name', title: 'Schedule', type: 'text', width: 14 },
    { key: 'play_id', title: 'Play ID', type: 'text', width: 12 },
  ],
  chart: { title: 'Plays per period', category: 'start', value: 'rows', aggregate: 'count' },
  digest: ['play_id', 'device_id', 'file_id', 'file_name', 'start', 'duration', 'playlist_id', 'schedule_id'],
  sql(req, names) {
    const { where, params } = scope(req, { media: 'file_id', completedPlays: true });
    return {
      sql: `SELECT timestamp AS start, device_id, ${deviceName()} AS device_name, file_id, file_name,
       round(duration, 3) AS duration, playlist_id, ${lookedUpName('playlist_id', 'pl')} AS playlist_name,
       schedule_id, ${lookedUpName('schedule_id', 'sc')} AS schedule_name, id AS play_id
FROM play_logs FINAL
WHERE ${where}
ORDER BY account_id, device_id, timestamp, id`,
      params: {
        ...params,
        dev_ids: names.ids,
        dev_names: names.names,
        pl_ids: names.playlists.ids,
        pl_names: names.playlists.names,
        sc_ids: names.schedules.ids,
        sc_names: names.schedules.names,
      },
    };
  },
};
