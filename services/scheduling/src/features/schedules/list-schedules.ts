import { listQuery, STAMP_FIELDS, storedFields, type FieldMap, type Filter, type ListArgs, type Principal } from '@pylon/kit';
import type { Schedule, ScheduleRepository } from '../../shared/schedule.repository.js';

export interface ScheduleQuery extends ListArgs {
  id?: string[] | null;
  groupId?: string[] | null;
  groupName?: string[] | null;
  deviceId?: string | null;
  orgId?: string | null;
  tag?: string[] | null;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/**
 * How ScheduleFilterInput / ScheduleSortInput map onto stored schedule documents. `priority`
 * arrives as its stored rank (the enum's internal value), so it filters and sorts as a number.
 */
export const SCHEDULE_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name', 'type', 'startTime', 'endTime', 'templateId', 'playlistId', 'groupId', 'groupName', 'orgId']),
  priority: { path: 'priority', kind: 'number' },
  ...storedFields('date', ['startDate', 'endDate']),
  ...storedFields('boolean', WEEKDAYS),
  tags: { path: 'tags', kind: 'stringList' },
  ...STAMP_FIELDS,
};

/** Lists the caller's schedules: argument filters AND where, sorted (default: name), `offset` skipped, limited. */
export function listSchedules(repo: ScheduleRepository, principal: Principal, q: ScheduleQuery): Promise<Schedule[]> {
  const { filter, options } = scheduleListing(q);
  return repo.findSchedules(principal.accountId, filter, options);
}

/** How many schedules listSchedules would return with the same filters (no limit, no offset): exact, the caller's account only. */
export function countSchedules(repo: ScheduleRepository, principal: Principal, q: ScheduleQuery): Promise<number> {
  return repo.countSchedules(principal.accountId, scheduleListing({ ...q, limit: null, offset: null, order: null }).filter);
}

function scheduleListing(q: ScheduleQuery): ReturnType<typeof listQuery> {
  const clauses: Filter[] = [];
  // Equality against an array field matches when any element equals the value.
  if (q.deviceId) clauses.push({ deviceIds: q.deviceId });
  if (q.orgId) clauses.push({ orgId: q.orgId });
  return listQuery(q, SCHEDULE_FIELDS, { anyOf: { id: q.id, groupId: q.groupId, groupName: q.groupName, tags: q.tag }, clauses });
}
