/**
 * A schedule's properties as callers give them (GraphQL input, REST body mapped, JSON Patch result)
 * -> the stored record, with every rule that needs no other service. Each refusal names its field.
 * Cross-service rules (the playlist, template, devices and organization are the caller's) are
 * checked by use-cases/manage-schedules.ts through the directory ports.
 */
import { z } from 'zod';
import { AppError, parseInput } from '@pylon/kit';
import { SCHEDULE_PRIORITIES, SCHEDULE_TYPES, type ScheduleRecord } from './schedule.js';
import { dayOfDate } from './zone-clock.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** Devices one schedule may name. */
export const MAX_SCHEDULE_DEVICES = 1000;

const idField = z.string().trim().min(1).max(200);
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T[0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const TIME_RE = /^(?:([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?|24:00(?::00)?)$/;

const dateField = z
  .string()
  .max(40)
  .refine(
    (v) => {
      const m = DATE_RE.exec(v);
      if (!m) return false;
      const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
      return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
    },
    { message: 'must be a date, YYYY-MM-DD (or an ISO 8601 timestamp)' },
  );
const timeField = z.string().max(8).regex(TIME_RE, { message: 'must be a time of day, HH:mm (00:00 to 24:00)' });
const flag = z.boolean().nullable().optional();

export const scheduleInputSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    type: z.enum(SCHEDULE_TYPES).nullable().optional(),
    startDate: dateField.nullable().optional(),
    endDate: dateField.nullable().optional(),
    startTime: timeField.nullable().optional(),
    endTime: timeField.nullable().optional(),
    ...(Object.fromEntries(WEEKDAYS.map((d) => [d, flag])) as Record<(typeof WEEKDAYS)[number], typeof flag>),
    /** The rank (GraphQL maps SchedulePriorityType onto it). */
    priority: z.number().int().min(1).max(5).nullable().optional(),
    templateId: idField.nullable().optional(),
    playlistId: idField.nullable().optional(),
    deviceIds: z.array(idField).max(MAX_SCHEDULE_DEVICES).nullable().optional(),
    groupId: idField.nullable().optional(),
    orgId: idField.nullable().optional(),
    tags: z.array(z.string().trim().min(1).max(100)).max(50).nullable().optional(),
    expectedVersion: z.number().int().min(1).nullable().optional(),
  })
  .strict();

export type ScheduleInput = z.infer<typeof scheduleInputSchema>;

/** 'HH:mm[:ss]' -> 'HH:MM:SS'. */
const normalTime = (t: string) => (t.length === 5 ? `${t}:00` : t);
/** Seconds after midnight of a stored 'HH:MM:SS' (24:00:00 -> 86400). */
export const secondsOf = (t: string) => Number(t.slice(0, 2)) * 3600 + Number(t.slice(3, 5)) * 60 + Number(t.slice(6, 8) || 0);

const bad = (field: string, message: string) => new AppError('BAD_USER_INPUT', message, { field });

/** The stored record (without group name: the use case resolves the group) or the first refusal. */
export function scheduleFromInput(raw: unknown): { record: Omit<ScheduleRecord, 'groupName'>; expectedVersion: number | null } {
  const i = parseInput(scheduleInputSchema, raw);
  const type = i.type ?? 'PLAYLIST';
  if (type === 'CAMPAIGN') throw bad('type', 'CAMPAIGN schedules (conditions) are not supported; use PLAYLIST or TEMPLATE');
  const startDate = i.startDate ? `${i.startDate.slice(0, 10)}T00:00:00.000Z` : null;
  const endDate = i.endDate ? `${i.endDate.slice(0, 10)}T00:00:00.000Z` : null;
  if (startDate && endDate && dayOfDate(endDate) < dayOfDate(startDate))
    throw bad('endDate', `endDate ${endDate.slice(0, 10)} is before startDate ${startDate.slice(0, 10)}`);
  const startTime = i.startTime ? normalTime(i.startTime) : null;
  const endTime = i.endTime ? normalTime(i.endTime) : null;
  if (startTime === '24:00:00') throw bad('startTime', 'startTime must be before 24:00');
  if (secondsOf(startTime ?? '00:00:00') === secondsOf(endTime ?? '24:00:00')) {
    throw bad('endTime', 'endTime equals startTime; leave both empty for the whole day');
  }
  const content = type === 'PLAYLIST' ? 'playlistId' : 'templateId';
  const other = type === 'PLAYLIST' ? 'templateId' : 'playlistId';
  if (!i[content]) throw bad(content, `${content} is required for a ${type} schedule`);
  if (i[other]) throw bad(other, `${other} applies to ${type === 'PLAYLIST' ? 'TEMPLATE' : 'PLAYLIST'} schedules only`);
  const deviceIds = [...new Set(i.deviceIds ?? [])];
  return {
    record: {
      name: i.name,
      type,
      startDate,
      endDate,
      startTime,
      endTime,
      ...(Object.fromEntries(WEEKDAYS.map((d) => [d, i[d] ?? true])) as Record<(typeof WEEKDAYS)[number], boolean>),
      priority: (i.priority ?? SCHEDULE_PRIORITIES.NORMAL) as ScheduleRecord['priority'],
      templateId: i.templateId ?? null,
      playlistId: i.playlistId ?? null,
      deviceIds,
      groupId: i.groupId ?? null,
      orgId: i.orgId ?? null,
      tags: i.tags ?? [],
    },
    expectedVersion: i.expectedVersion ?? null,
  };
}

/** A stored schedule as the input that would recreate it (what JSON Patch paths address). */
export function inputOf(s: ScheduleRecord): Record<string, unknown> {
  const priority = Object.entries(SCHEDULE_PRIORITIES).find(([, rank]) => rank === s.priority)?.[0] ?? 'NORMAL';
  return {
    name: s.name,
    type: s.type,
    startDate: s.startDate?.slice(0, 10) ?? null,
    endDate: s.endDate?.slice(0, 10) ?? null,
    startTime: s.startTime,
    endTime: s.endTime,
    ...Object.fromEntries(WEEKDAYS.map((d) => [d, s[d]])),
    priority,
    templateId: s.templateId,
    playlistId: s.playlistId,
    deviceIds: [...(s.deviceIds ?? [])],
    groupId: s.groupId,
    orgId: s.orgId,
    tags: [...(s.tags ?? [])],
  };
}
