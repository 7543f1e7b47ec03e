import { orderToSort, resolveLimit, whereToFilter, type FieldMap, type Filter, type Principal } from '@pylon/kit';
import type { Schedule, ScheduleRepository } from '../schedule.repository.js';

export interface ScheduleQuery {
  id?: string[] | null;
  groupId?: string[] | null;
  groupName?: string[] | null;
  deviceId?: string | null;
  orgId?: string | null;
  tag?: string[] | null;
  limit?: number | null;
  /** Items to skip (REST page * take). */
  offset?: number | null;
  where?: unknown;
  order?: unknown;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/**
 * How ScheduleFilterInput / ScheduleSortInput map onto stored schedule documents. `priority`
 * arrives as its stored rank (the enum's internal value), so it filters and sorts as a number.
 */
export const SCHEDULE_FIELDS: FieldMap = {
  id: { path: 'id', kind: 'string' },
  name: { path: 'name', kind: 'string' },
  type: { path: 'type', kind: 'string' },
  priority: { path: 'priority', kind: 'number' },
  startDate: { path: 'startDate', kind: 'date' },
  endDate: { path: 'endDate', kind: 'date' },
  startTime: { path: 'startTime', kind: 'string' },
  endTime: { path: 'endTime', kind: 'string' },
  ...Object.fromEntries(WEEKDAYS.map((d) => [d, { path: d, kind: 'boolean' as const }])),
  templateId: { path: 'templateId', kind: 'string' },
  playlistId: { path: 'playlistId', kind: 'string' },
  groupId: { path: 'groupId', kind: 'string' },
  groupName: { path: 'groupName', kind: 'string' },
  orgId: { path: 'orgId', kind: 'string' },
  tags: { path: 'tags', kind: 'stringList' },
  createdOn: { path: 'createdAt', kind: 'date' },
  updatedOn: { path: 'updatedAt', kind: 'date' },
};

/** Lists the caller's schedules: argument filters AND where, sorted (default: name), `offset` skipped, limited. */
export function listSchedules(repo: ScheduleRepository, principal: Principal, q: ScheduleQuery): Promise<Schedule[]> {
  const clauses: Filter[] = [];
  const anyOf = (path: string, values: string[] | null | undefined) => {
    if (values && values.length) clauses.push({ [path]: { $in: values } });
  };
  anyOf('id', q.id);
  anyOf('groupId', q.groupId);
  anyOf('groupName', q.groupName);
  anyOf('tags', q.tag);
  // Equality against an array field matches when any element equals the value.
  if (q.deviceId) clauses.push({ deviceIds: q.deviceId });
  if (q.orgId) clauses.push({ orgId: q.orgId });
  const where = whereToFilter(q.where, SCHEDULE_FIELDS);
  if (Object.keys(where).length) clauses.push(where);
  const filter: Filter = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0]! : { $and: clauses };
  const limit = resolveLimit(q.limit);
  const skip = resolveLimit(q.offset, { default: 0, max: 10_000_000 }, 'offset');
  const sort = orderToSort(q.order, SCHEDULE_FIELDS, { name: 1, id: 1 });
  return repo.findSchedules(principal.accountId, filter, { sort, limit, ...(skip ? { skip } : {}) });
}
