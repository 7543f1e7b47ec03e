/**
 * The SQL of the audit event reads (table from kit/migrations/analytics/001_telemetry.sql):
 * scoped to one account, every filter bound as a parameter, newest first unless `order` says otherwise. FINAL collapses events
 * replayed by the ingest that were not merged yet.
 */
import type { AnalyticsStore, AuditEventRecord, SqlParams } from '@pylon/kit';
import type { AuditEvent, AuditQuery } from '../../domain/audit.js';
import { namedColumns, orderSql, WhereBuilder, type ColumnMap } from '../../shared/where.sql.js';

const TEXT_FILTERS = [
  ['userId', 'user_id'],
  ['eventType', 'event_type'],
  ['httpMethod', 'http_method'],
  ['controllerName', 'controller_name'],
  ['actionName', 'action_name'],
  ['ipAddress', 'ip_address'],
] as const;

/** The GraphQL where/order fields of AuditEvent and their columns (absent user/ip are ''). */
const AUDIT_FIELDS: ColumnMap = {
  ...namedColumns('string', ['eventId', 'eventType', 'userId', 'userName', 'httpMethod', 'controllerName', 'actionName', 'ipAddress', 'interface']),
  timestamp: { column: 'timestamp', kind: 'date' },
  responseCode: { column: 'response_code', kind: 'number' },
};

/** An audit_events row as selected: the timestamp comes formatted in SQL as `ts`. */
type AuditRow = Omit<AuditEventRecord, 'account_id' | 'timestamp'> & { ts: string };

const int = (n: number, what: string) => {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`audit query ${what} must be a non-negative integer, got ${n}`);
  return n;
};

export async function selectAuditEvents(store: AnalyticsStore, q: AuditQuery): Promise<AuditEvent[]> {
  const where = ['account_id = {acc:String}'];
  const params: SqlParams = { acc: q.accountId };
  if (q.from) {
    where.push("timestamp >= parseDateTime64BestEffort({from:String}, 3, 'UTC')");
    params.from = q.from.toISOString();
  }
  if (q.to) {
    where.push("timestamp < parseDateTime64BestEffort({to:String}, 3, 'UTC')");
    params.to = q.to.toISOString();
  }
  if (q.eventIds) {
    where.push('has({ids:Array(String)}, event_id)');
    params.ids = q.eventIds;
  }
  for (const [key, column] of TEXT_FILTERS) {
    const v = q[key];
    if (v === undefined) continue;
    where.push(`${column} = {${key}:String}`);
    params[key] = v;
  }
  if (q.responseCode !== undefined) {
    where.push('response_code = {responseCode:UInt16}');
    params.responseCode = q.responseCode;
  }
  const filter = new WhereBuilder(AUDIT_FIELDS);
  where.push(filter.where(q.where));
  const order = orderSql(q.order, AUDIT_FIELDS, 'timestamp DESC, event_id DESC');
  const rows = await store.query<AuditRow>(
    `SELECT event_id, formatDateTime(timestamp, '%Y-%m-%dT%H:%i:%SZ', 'UTC') AS ts, event_type, user_id, user_name,
  http_method, controller_name, action_name, ip_address, response_code, interface
FROM audit_events FINAL
WHERE ${where.join('\n  AND ')}
ORDER BY ${order}
LIMIT ${int(q.limit, 'limit')} OFFSET ${int(q.offset, 'offset')}`,
    { ...params, ...filter.params },
  );
  return rows.map((r) => ({
    eventId: r.event_id,
    timestamp: r.ts,
    eventType: r.event_type,
    userId: r.user_id || null,
    userName: r.user_name || null,
    httpMethod: r.http_method,
    controllerName: r.controller_name,
    actionName: r.action_name,
    ipAddress: r.ip_address || null,
    responseCode: Number(r.response_code),
    interface: r.interface,
  }));
}
