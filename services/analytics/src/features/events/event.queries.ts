/**
 * Custom device/application events from event_logs: the events, counts per period (and name),
 * and the flow between consecutive events of one session (Sankey links).
 */
import type { AnalyticsStore } from '@pylon/kit';
import type { AnalyticsQuery, SeriesQuery } from '../../domain/analytics-query.js';
import { grainsOf, planSource, ROLLUPS, type Source } from '../../domain/rollup-plan.js';
import { fillSeries, groupsOf } from '../../domain/series.js';
import type { EventFlowLink, EventLog, EventMetric } from '../../shared/resolvers.generated.js';
import { isoOf, isoSql, limitClause, periodExpr, scope } from '../../shared/scope.sql.js';
import type { ListArgs } from '../../domain/list-filter.js';
import { listSql, namedColumns, orderSql, TELEMETRY_FIELDS, WhereBuilder, type ColumnMap } from '../../shared/where.sql.js';

const EVENT_COLUMNS = { device: 'device_id', event: 'event_name' };

interface EventRow {
  id: string;
  ts: string;
  device_id: string;
  session_id: string;
  event_name: string;
  properties: string;
  latitude: number | null;
  longitude: number | null;
}

const EVENT_FIELDS: ColumnMap = {
  ...TELEMETRY_FIELDS,
  ...namedColumns('string', ['sessionId', 'eventName']),
};

export async function selectEventLogs(store: AnalyticsStore, q: AnalyticsQuery, list: { where?: unknown; order?: unknown } = {}): Promise<EventLog[]> {
  const { where, params } = scope(q, EVENT_COLUMNS);
  const filter = new WhereBuilder(EVENT_FIELDS);
  const condition = filter.where(list.where);
  const rows = await store.query<EventRow>(
    `SELECT id, ${isoSql('timestamp')} AS ts, device_id, session_id, event_name, properties, latitude, longitude
FROM event_logs FINAL
WHERE ${where} AND ${condition}
ORDER BY ${orderSql(list.order, EVENT_FIELDS, 'timestamp, device_id, id')}
${limitClause(q.limit)}`,
    { ...params, ...filter.params },
  );
  return rows.map((r) => ({
    id: r.id,
    timestamp: r.ts,
    deviceId: r.device_id,
    sessionId: r.session_id || null,
    eventName: r.event_name,
    properties: r.properties || null,
    latitude: r.latitude,
    longitude: r.longitude,
  }));
}

/** `source`: raw event logs or the hourly rollup (default: what the planner chooses for the range). */
export async function selectEventMetrics(
  store: AnalyticsStore,
  q: SeriesQuery,
  groupByEvent: boolean,
  source: Source = planSource(q.range, q.buckets, grainsOf(ROLLUPS.events)),
): Promise<EventMetric[]> {
  const raw = source !== 'HOUR';
  const { where, params } = scope(q, raw ? EVENT_COLUMNS : { ...EVENT_COLUMNS, time: 'period' });
  const name = groupByEvent ? 'event_name' : "''";
  const rows = await store.query<{ p: number; name: string; total: number; sessions: number }>(
    raw
      ? `SELECT ${periodExpr(q.interval, 'timestamp')} AS p, ${name} AS name,
  count() AS total, uniqExactIf(tuple(device_id, session_id), session_id != '') AS sessions
FROM event_logs FINAL
WHERE ${where}
GROUP BY p, name`
      : `SELECT ${periodExpr(q.interval, 'period')} AS p, ${name} AS name, sum(events) AS total, uniqExactIfMerge(sessions) AS sessions
FROM ${ROLLUPS.events.HOUR}
WHERE ${where}
GROUP BY p, name`,
    { ...params, tz: q.timeZone },
  );
  const series = fillSeries(
    q.buckets,
    groupByEvent ? groupsOf(rows, (r) => r.name) : [''],
    rows,
    (r) => r.name,
    (name, b, r): EventMetric => ({
      eventName: groupByEvent ? name : null,
      periodStart: isoOf(b.start),
      periodEnd: isoOf(b.end),
      totalEvents: r ? Number(r.total) : 0,
      uniqueSessions: r ? Number(r.sessions) : 0,
    }),
    q.limit,
  );
  return series;
}

const FLOW_FIELDS: ColumnMap = {
  source: { column: 'source', kind: 'string' },
  target: { column: 'target', kind: 'string' },
  count: { column: 'toFloat64(c)', kind: 'number' },
};

/**
 * Links source -> target: within one session of one device, in time order (then id), target was
 * the next event after source. Events without a session are not part of a path.
 */
export async function selectEventFlow(store: AnalyticsStore, q: AnalyticsQuery, list: ListArgs = {}): Promise<EventFlowLink[]> {
  const { where, params } = scope(q, EVENT_COLUMNS);
  const { sql, params: listParams } = listSql(
    `SELECT link.1 AS source, link.2 AS target, count() AS c
FROM (
  SELECT arrayMap(x -> x.2, arraySort(x -> (x.1, x.3), groupArray((timestamp, event_name, id)))) AS names
  FROM event_logs FINAL
  WHERE ${where} AND session_id != ''
  GROUP BY device_id, session_id
)
ARRAY JOIN arrayZip(arrayPopBack(names), arrayPopFront(names)) AS link
GROUP BY source, target`,
    FLOW_FIELDS,
    list,
    'c DESC, source, target',
    limitClause(q.limit),
  );
  const rows = await store.query<{ source: string; target: string; c: number }>(sql, { ...params, ...listParams });
  return rows.map((r) => ({ source: r.source, target: r.target, count: Number(r.c) }));
}
