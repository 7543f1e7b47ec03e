/**
 * /schedules and /schedules/groups onto the scheduling subgraph, in the reference's shapes: its
 * ScheduleRequest in, its Schedule out (snake_case, `type` and `priority` in the reference's
 * spelling, `tags` a comma-separated string, `modified_on` the last change).
 */
import { snakeKeys } from '@pylon/kit';
import { createOp, deleteOp, getOp, listOp, patchOp, updateOp, type FieldMap } from './declare.js';
import { CONTENT_GROUP_EXTRA, groupOps } from './groups.js';
import { tagList } from './device-writes.js';
import type { RestScheduleFragment } from '@pylon/kit/generated/rest-operations.generated';
import { isRecord } from './shape.js';
import type { RestSchema } from './types.js';

const TYPES: Record<string, string> = { PLAYLIST: 'Playlist', TEMPLATE: 'Template', CAMPAIGN: 'Campaign' };
const PRIORITIES: Record<string, string> = { LOWEST: 'Lowest', LOW: 'Low', NORMAL: 'Normal', HIGH: 'High', HIGHEST: 'Highest' };
/** The reference's enum spelling -> GraphQL's (unknown values pass through for the subgraph to refuse, naming the field). */
const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v);
const deviceIds = (v: unknown) => (Array.isArray(v) ? v.map((d) => (isRecord(d) ? d.id : d)) : v);

/** GraphQL Schedule -> the reference's Schedule (which allows no other members). */
export function toRestSchedule(s: RestScheduleFragment): RestSchema<'Schedule'> {
  const { updatedOn, ...rest } = s;
  const body = snakeKeys(rest) as Record<string, unknown>;
  body.type = TYPES[String(s.type)] ?? s.type;
  body.priority = PRIORITIES[String(s.priority)] ?? s.priority;
  body.tags = Array.isArray(s.tags) ? s.tags.join(',') : null;
  body.modified_on = updatedOn ?? null;
  // The reference answers these always; Pylon keeps no campaign conditions and no authors.
  body.conditions = null;
  body.created_by_id = null;
  body.modified_by_id = null;
  // The generic case conversion above gives the other Schedule members.
  return body as RestSchema<'Schedule'>;
}

/** ScheduleRequest property -> ScheduleInput field. Campaign `conditions` are accepted empty only (rest.yaml) and dropped. */
const SCHEDULE_FIELDS = {
  name: 'name',
  group_id: 'groupId',
  tags: { to: 'tags', map: tagList },
  monday: 'monday',
  tuesday: 'tuesday',
  wednesday: 'wednesday',
  thursday: 'thursday',
  friday: 'friday',
  saturday: 'saturday',
  sunday: 'sunday',
  start_date: 'startDate',
  end_date: 'endDate',
  start_time: 'startTime',
  end_time: 'endTime',
  template_id: 'templateId',
  playlist_id: 'playlistId',
  type: { to: 'type', map: upper },
  devices: { to: 'deviceIds', map: deviceIds },
  conditions: false,
  priority: { to: 'priority', map: upper },
} as const satisfies FieldMap;

const toRest = (s: RestScheduleFragment) => toRestSchedule(s);

export const listSchedules = listOp('listSchedules', {
  root: 'schedule',
  count: 'total',
  params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName', device_id: 'deviceId' },
  toRest,
});

export const getSchedule = getOp('getSchedule', { root: 'schedule', what: 'schedule', toRest });

export const createSchedule = createOp('createSchedule', { root: 'createSchedule', record: 'schedule', body: { fields: SCHEDULE_FIELDS }, toRest });

/** PUT replaces: what the body leaves out is reset (as on creation). Answers 204 like the reference. */
export const updateSchedule = updateOp('updateSchedule', {
  root: 'updateSchedule',
  record: 'schedule',
  body: { fields: SCHEDULE_FIELDS },
  status: 204,
  toRest,
});

/** Paths name ScheduleRequest properties (/start_time, /devices/0); values in its spelling. */
export const patchSchedule = patchOp('patchSchedule', {
  root: 'patchSchedule',
  record: 'schedule',
  renames: { devices: 'deviceIds' },
  value: (path, value) =>
    path === '/tags'
      ? tagList(value)
      : path.startsWith('/deviceIds')
        ? isRecord(value)
          ? value.id
          : deviceIds(value)
        : path === '/type' || path === '/priority'
          ? upper(value)
          : value,
  toRest,
});

export const deleteSchedule = deleteOp('deleteSchedule', { root: 'deleteSchedule' });

export const {
  list: listScheduleGroups,
  create: createScheduleGroup,
  update: updateScheduleGroup,
  remove: deleteScheduleGroup,
} = groupOps(
  { list: 'scheduleGroups', create: 'createScheduleGroup', update: 'updateScheduleGroup', remove: 'deleteScheduleGroup' },
  // The reference's Group answers these always; Pylon's groups have no family or organization count.
  CONTENT_GROUP_EXTRA,
);
