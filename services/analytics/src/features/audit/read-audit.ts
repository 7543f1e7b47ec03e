import { badInput, resolveLimit, type AnalyticsStore, type Principal } from '@pylon/kit';
import { AUDIT_LIMIT, type AuditEvent, type AuditQuery } from '../../domain/audit.js';
import { parseIsoDate } from '../../domain/date-range.js';
import { selectAuditEvents } from './audit.queries.js';

export interface AuditArgs {
  startDate?: string | null;
  endDate?: string | null;
  limit?: number | null;
  offset?: number | null;
  eventId?: string[] | null;
  userId?: string | null;
  eventType?: string | null;
  httpMethod?: string | null;
  controllerName?: string | null;
  actionName?: string | null;
  ipAddress?: string | null;
  responseCode?: number | null;
  where?: unknown;
  order?: unknown;
}

const text = (v: string | null | undefined, field: string): string | undefined => {
  if (v === null || v === undefined || v === '') return undefined;
  if (v.length > 200) throw badInput(field, `${field} must be at most 200 characters`);
  return v;
};

/** Validates the arguments into a query on the caller's own account. */
export function toAuditQuery(principal: Principal, args: AuditArgs): AuditQuery {
  const q: AuditQuery = {
    accountId: principal.accountId,
    limit: resolveLimit(args.limit, AUDIT_LIMIT),
    offset: resolveLimit(args.offset, { default: 0, max: 1_000_000 }, 'offset'),
    where: args.where,
    order: args.order,
  };
  if (args.startDate) q.from = new Date(parseIsoDate(args.startDate, 'startDate').instant);
  if (args.endDate) {
    const end = parseIsoDate(args.endDate, 'endDate');
    // Included at the precision written, as in the analytics queries: a date covers that whole day,
    // a time in whole seconds that whole second (events are shown in whole seconds).
    q.to = new Date(end.instant + end.unit);
  }
  if (q.from && q.to && q.to <= q.from) throw badInput('endDate', 'endDate must be after startDate');
  if (args.eventId) {
    if (args.eventId.length > 100) throw badInput('eventId', 'at most 100 event ids');
    q.eventIds = args.eventId;
  }
  const filters = {
    userId: args.userId,
    eventType: args.eventType,
    controllerName: args.controllerName,
    actionName: args.actionName,
    ipAddress: args.ipAddress,
  } as const;
  for (const [k, v] of Object.entries(filters) as [keyof typeof filters, string | null | undefined][]) {
    const t = text(v, k);
    if (t !== undefined) q[k] = t;
  }
  const method = text(args.httpMethod, 'httpMethod');
  if (method !== undefined) q.httpMethod = method.toUpperCase();
  if (args.responseCode !== null && args.responseCode !== undefined) {
    if (!Number.isInteger(args.responseCode) || args.responseCode < 100 || args.responseCode > 599)
      throw badInput('responseCode', 'responseCode must be an HTTP status code, 100 to 599');
    q.responseCode = args.responseCode;
  }
  return q;
}

export function readAuditEvents(store: AnalyticsStore, principal: Principal, args: AuditArgs): Promise<AuditEvent[]> {
  return selectAuditEvents(store, toAuditQuery(principal, args));
}
