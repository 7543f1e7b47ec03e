/**
 * /schedules and /schedules/groups onto the scheduling subgraph, in the reference's shapes: its
 * ScheduleRequest in, its Schedule out (snake_case, `type` and `priority` in the reference's
 * spelling, `tags` a comma-separated string, `modified_on` the last change).
 */
import { snakeKeys } from '@pylon/kit';
import { createOp, deleteOp, byIdGetOp, listOp, patchOp, updateOp, type FieldMap } from './declare.js';
import { groupOps } from './groups.js';
import { tagList } from './device-writes.js';
import type { RestScheduleFragment } from '@pylon/kit/generated/rest-operations.generated';
import { isRecord } from './shape.js';
import type { RestSchema } from './types.js';
import { answers, arrayOf, byId, created, JSON_PATCH_BODY, jsonBody, md, noContent, params, ref, route } from './route.js';
import { gql } from './gql.js';

const TYPES: Record<string, string> = { PLAYLIST: 'Playlist', TEMPLATE: 'Template', CAMPAIGN: 'Campaign' };
const PRIORITIES: Record<string, string> = { LOWEST: 'Lowest', LOW: 'Low', NORMAL: 'Normal', HIGH: 'High', HIGHEST: 'Highest' };
/** The reference's enum spelling -> GraphQL's (unknown values pass through for the subgraph to refuse, naming the field). */
const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v);
const deviceIds = (v: unknown) => (Array.isArray(v) ? v.map((d) => (isRecord(d) ? d.id : d)) : v);

/** GraphQL Schedule -> the reference's Schedule (which allows no other members). */
export function toRestSchedule(s: RestScheduleFragment): RestSchema<'Schedule'> {
  const { updatedOn, ...rest } = s;
  // The generic case conversion gives the other Schedule members (in the fragment's order; those below keep their place).
  return {
    ...(snakeKeys(rest) as RestSchema<'Schedule'>),
    type: (TYPES[String(s.type)] ?? s.type) as RestSchema<'Schedule'>['type'],
    priority: (PRIORITIES[String(s.priority)] ?? s.priority) as RestSchema<'Schedule'>['priority'],
    tags: Array.isArray(s.tags) ? s.tags.join(',') : null,
    modified_on: updatedOn ?? null,
    // The reference answers these always; Pylon keeps no campaign conditions and no authors.
    conditions: null,
    created_by_id: null,
    modified_by_id: null,
  };
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

export const listSchedules = route(
  'GET /schedules',
  {
    tags: ['Schedules'],
    summary: 'Schedules.',
    description: md(
      "The account's schedules by name. `device_id` keeps the schedules that include that device;",
      '`group_id` and `group_name` match any of the values given. Policy: Schedules_View.',
    ),
    parameters: [
      ...params('IdQuery', 'Take', 'Page', 'GroupId', 'GroupName'),
      {
        name: 'device_id',
        in: 'query',
        description: 'Only schedules that include this device.',
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      },
    ],
    responses: answers('The schedules.', arrayOf('Schedule'), 400, 401, 403, 500),
  },
  listOp('listSchedules', {
    document: gql`
      # GET /schedules.
      query listSchedules($id: [String!], $groupId: [String!], $groupName: [String!], $deviceId: String, $limit: Int, $offset: Int) {
        schedule(id: $id, groupId: $groupId, groupName: $groupName, deviceId: $deviceId, limit: $limit, offset: $offset) {
          ...RestSchedule
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, counted by the store.
        total: scheduleCount(id: $id, groupId: $groupId, groupName: $groupName, deviceId: $deviceId)
      }
    `,
    root: 'schedule',
    count: 'total',
    params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName', device_id: 'deviceId' },
    toRest: toRestSchedule,
  }),
);

export const getSchedule = route(
  'GET /schedules/{id}',
  {
    tags: ['Schedules'],
    summary: 'One schedule.',
    description: "404 when no schedule of the caller's account has this id. Policy Schedules_View.",
    ...byId('The schedule.', 'Schedule', 400, 401, 403, 404, 500),
  },
  byIdGetOp('getSchedule', { from: 'list', root: 'schedule', fragment: 'RestSchedule', what: 'schedule', toRest: toRestSchedule }),
);

export const createSchedule = route(
  'POST /schedules',
  {
    tags: ['Schedules'],
    summary: 'Create a schedule.',
    description: md(
      "The reference's ScheduleRequest. A Playlist schedule needs `playlist_id`, a Template schedule",
      "`template_id`, each of the caller's account; `devices` must be the caller's; `end_date` not",
      'before `start_date`; times `HH:mm` (an end before the start runs overnight). Campaign',
      'schedules (conditions) are refused. Each refusal is a 400 naming the property. Policy: Schedules_Edit.',
    ),
    requestBody: jsonBody('ScheduleRequest'),
    responses: created('The new schedule.', ref('Schedule'), 400, 401, 403, 500),
  },
  createOp('createSchedule', { root: 'createSchedule', record: 'schedule', body: { fields: SCHEDULE_FIELDS }, toRest: toRestSchedule }),
);

/** PUT replaces: what the body leaves out is reset (as on creation). Answers 204 like the reference. */
export const updateSchedule = route(
  'PUT /schedules/{id}',
  {
    tags: ['Schedules'],
    summary: 'Replace a schedule.',
    description:
      'Every property left out is reset to its default (as on creation). Same rules as POST. Answers 204, as the reference does. Policy Schedules_Edit.',
    parameters: params('IdPath'),
    requestBody: jsonBody('ScheduleRequest'),
    responses: noContent('Updated; GET /schedules/{id} reads it.', 400, 401, 403, 404, 409, 500),
  },
  updateOp('updateSchedule', {
    root: 'updateSchedule',
    record: 'schedule',
    body: { fields: SCHEDULE_FIELDS },
    status: 204,
    toRest: toRestSchedule,
  }),
);

/** Paths name ScheduleRequest properties (/start_time, /devices/0); values in its spelling. */
export const patchSchedule = route(
  'PATCH /schedules/{id}',
  {
    tags: ['Schedules'],
    summary: 'JSON Patch a schedule.',
    description: md(
      'A JSON Patch (RFC 6902) array over the ScheduleRequest properties in snake_case (/name,',
      '/start_time, /devices, /priority, ...). The result is validated like PUT and written only if',
      'nobody changed the schedule meanwhile (409 otherwise). Policy: Schedules_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: JSON_PATCH_BODY,
    responses: answers('The patched schedule.', ref('Schedule'), 400, 401, 403, 404, 409, 500),
  },
  patchOp('patchSchedule', {
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
    toRest: toRestSchedule,
  }),
);

export const deleteSchedule = route(
  'DELETE /schedules/{id}',
  {
    tags: ['Schedules'],
    summary: 'Delete a schedule.',
    description: 'Policy Schedules_Delete.',
    parameters: params('IdPath'),
    responses: noContent('Deleted.', 401, 403, 404, 500),
  },
  deleteOp('deleteSchedule', { root: 'deleteSchedule' }),
);

export const {
  list: listScheduleGroups,
  create: createScheduleGroup,
  update: updateScheduleGroup,
  remove: deleteScheduleGroup,
} = groupOps({
  path: '/schedules/groups',
  tag: 'Schedules',
  noun: 'schedule',
  plural: 'schedules',
  policy: 'Schedules',
  schema: 'Group',
  request: 'GroupRequest',
  deviation: "Schedule groups are Pylon's groups (as device groups) - a name is required; family and organization_count are not kept.",
});
