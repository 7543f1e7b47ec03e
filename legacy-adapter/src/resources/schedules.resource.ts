/** Legacy GET /schedules: the account's schedules (json, xml, JSONP like every legacy resource). */
import { z } from 'zod';
import { snakeRecord } from '@pylon/kit';
import { parseQuery, resource, type LegacyData } from './resource.js';

const FIELDS = [
  'id',
  'name',
  'type',
  'start_date',
  'end_date',
  'start_time',
  'end_time',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'priority',
  'template_id',
  'playlist_id',
  'group_id',
  'group_name',
] as const;

const Query = z.object({
  device_id: z.string().min(1).max(200).optional(),
  group_id: z.string().min(1).max(200).optional(),
  take: z.coerce.number().int().min(0).max(1000).optional(),
  page: z.coerce.number().int().min(0).max(1_000_000).optional(),
});

type ScheduleData = NonNullable<LegacyData<'listSchedules'>['schedule']>[number];

/** A schedule as the legacy API writes it: the listed fields in snake_case, its devices by id. */
const toLegacySchedule = (s: ScheduleData) => ({ ...snakeRecord(s, FIELDS), devices: s.devices.map((d) => ({ id: d.id })) });

export const listSchedules = resource('GET /schedules', 'listSchedules', { root: 'schedules', item: 'schedule' }, async ({ query, call }) => {
  const q = parseQuery(Query, { device_id: query.device_id, group_id: query.group_id, take: query.take, page: query.page });
  const take = q.take ?? 100;
  const data = await call({
    ...(q.device_id ? { deviceId: q.device_id } : {}),
    ...(q.group_id ? { groupId: [q.group_id] } : {}),
    limit: take,
    offset: (q.page ?? 0) * take,
  });
  return (data.schedule ?? []).map(toLegacySchedule);
});
