/**
 * The SQL of the log queries (tables from kit/migrations/analytics/001_telemetry.sql). Every query
 * is scoped to one account and binds every value as a `{name:Type}` parameter; only the limit,
 * an integer validated before it gets here, is spliced into the text; `where` / `order` go through
 * sql/where.sql.ts (columns from the declarations below, values bound).
 * FINAL collapses replayed events (ReplacingMergeTree) that have not been merged yet.
 */
import type { AnalyticsStore, SqlParams } from '@pylon/kit';
import type { LogQuery, PingLog, PlayLog } from '../../domain/logs.js';
import { namedColumns, orderSql, TELEMETRY_FIELDS, WhereBuilder, type ColumnMap } from '../../shared/where.sql.js';

/** The shared WHERE clause and its parameters: account, [from, to), optional devices and files. */
function scope(q: LogQuery, fields: ColumnMap): { where: string; params: SqlParams } {
  const where = [
    'account_id = {acc:String}',
    "timestamp >= parseDateTime64BestEffort({from:String}, 3, 'UTC')",
    "timestamp < parseDateTime64BestEffort({to:String}, 3, 'UTC')",
  ];
  const params: SqlParams = { acc: q.accountId, from: q.range.from.toISOString(), to: q.range.to.toISOString() };
  if (q.deviceIds.length) {
    where.push('has({devices:Array(String)}, device_id)');
    params.devices = q.deviceIds;
  }
  if (q.fileIds.length) {
    // Only tables with a file: a file filter on ping logs is a programming error, not an empty answer.
    if (!fields.fileId) throw new Error('these logs carry no file to filter on');
    where.push('has({files:Array(String)}, file_id)');
    params.files = q.fileIds;
  }
  const filter = new WhereBuilder(fields);
  where.push(filter.where(q.where));
  return { where: where.join('\n  AND '), params: { ...params, ...filter.params } };
}

const PLAY_FIELDS: ColumnMap = {
  ...TELEMETRY_FIELDS,
  ...namedColumns('string', ['fileId', 'fileName', 'type', 'status', 'zoneId']),
  ...namedColumns('number', ['duration', 'clockOffsetMs']),
  endTimestamp: { column: 'end_timestamp', kind: 'date' },
};
const PING_FIELDS: ColumnMap = {
  ...TELEMETRY_FIELDS,
  ...namedColumns('number', ['cpuUsage', 'memoryUsage', 'diskUsage']),
  ...namedColumns('string', ['ipAddress', 'externalIpAddress']),
};

function limitClause(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`log query limit must be a non-negative integer, got ${limit}`);
  return `LIMIT ${limit}`;
}

// Seconds precision and a literal Z: the interface's timestamp form, whatever the engine's output settings.
const TS = "formatDateTime(timestamp, '%Y-%m-%dT%H:%i:%SZ', 'UTC') AS ts";

/** The columns every log row starts with. */
interface LogRow {
  id: string;
  device_id: string;
  ts: string;
}

/** A log's first fields, from those columns. */
const logKeys = (r: LogRow) => ({ id: r.id, timestamp: r.ts, deviceId: r.device_id });

/** The log table's rows of one query: the shared scope and filter, its order (default time, device, id), its limit. */
function selectLog<R extends LogRow>(store: AnalyticsStore, table: string, columns: string, q: LogQuery, fields: ColumnMap): Promise<R[]> {
  const { where, params } = scope(q, fields);
  return store.query<R>(
    `SELECT ${columns}
FROM ${table} FINAL
WHERE ${where}
ORDER BY ${orderSql(q.order, fields, 'timestamp, device_id, id')}
${limitClause(q.limit)}`,
    params,
  );
}

interface PlayLogRow extends LogRow {
  file_id: string;
  file_name: string;
  duration: number;
  type: string;
  end_ts: string | null;
  status: string;
  clock_offset_ms: number | string | null;
  zone_id: string;
}

export async function selectPlayLogs(store: AnalyticsStore, q: LogQuery): Promise<PlayLog[]> {
  const rows = await selectLog<PlayLogRow>(
    store,
    'play_logs',
    `id, device_id, ${TS}, file_id, file_name, duration, type,
  if(isNull(end_timestamp), NULL, formatDateTime(assumeNotNull(end_timestamp), '%Y-%m-%dT%H:%i:%SZ', 'UTC')) AS end_ts,
  status, clock_offset_ms, zone_id`,
    q,
    PLAY_FIELDS,
  );
  return rows.map((r) => ({
    ...logKeys(r),
    fileId: r.file_id || null,
    fileName: r.file_name || null,
    duration: r.duration,
    type: r.type || null,
    endTimestamp: r.end_ts || null,
    status: r.status || 'completed',
    // Int64 may come back as text (JSON output quotes 64-bit integers).
    clockOffsetMs: r.clock_offset_ms === null || r.clock_offset_ms === undefined ? null : Number(r.clock_offset_ms),
    zoneId: r.zone_id || null,
  }));
}

interface PingLogRow extends LogRow {
  cpu_usage: number;
  memory_usage: number;
  disk_usage: number;
  ip_address: string;
  external_ip_address: string;
}

export async function selectPingLogs(store: AnalyticsStore, q: LogQuery): Promise<PingLog[]> {
  const rows = await selectLog<PingLogRow>(
    store,
    'ping_logs',
    `id, device_id, ${TS}, cpu_usage, memory_usage, disk_usage, ip_address, external_ip_address`,
    q,
    PING_FIELDS,
  );
  return rows.map((r) => ({
    ...logKeys(r),
    cpuUsage: r.cpu_usage,
    memoryUsage: r.memory_usage,
    diskUsage: r.disk_usage,
    ipAddress: r.ip_address || null,
    externalIpAddress: r.external_ip_address || null,
  }));
}
