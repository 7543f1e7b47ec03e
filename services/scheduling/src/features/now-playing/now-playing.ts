/**
 * "What does this screen show at this moment, and why?": reads the device's zone and schedules and
 * whether their content still exists (I/O through the ports), then asks the pure engine.
 */
import { AppError, type Principal } from '@pylon/kit';
import { planOf, type SchedulePlan } from '../../domain/plan.js';
import { resolve, timeline, type Resolution, type Segment, type Verdict } from '../../domain/resolution.js';
import { isTimeZone, wallAt } from '../../domain/zone-clock.js';
import type { Schedule } from '../../shared/schedule.repository.js';
import type { SchedulingRuntime } from '../../runtime.js';

/** Longest deviceTimeline range. */
export const MAX_TIMELINE_DAYS = 62;

export type Plans = SchedulePlan<Schedule>[];

export interface DeviceSchedules {
  deviceId: string;
  zone: string;
  plans: Plans;
}

/** Parses an ISO 8601 instant argument, naming it on failure. */
export function instantArg(value: string | null | undefined, field: string, fallback?: number): number {
  if (value === null || value === undefined) {
    if (fallback !== undefined) return fallback;
    throw new AppError('BAD_USER_INPUT', `${field} is required`, { field });
  }
  const t = value.length <= 40 && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t)) throw new AppError('BAD_USER_INPUT', `${field} must be an ISO 8601 date-time, e.g. 2026-03-29T01:30:00Z`, { field });
  return t;
}

/** The zone a device's windows are read in: its own, else the account's, else UTC. */
export async function zoneOf(rt: SchedulingRuntime, caller: Principal, own: string | null): Promise<string> {
  if (own && isTimeZone(own)) return own;
  const account = await rt.accounts.timeZone(caller).catch(() => 'UTC');
  return isTimeZone(account) ? account : 'UTC';
}

/** Turns schedules into plans, asking content which playlists and templates still exist. */
export async function plansOf(rt: SchedulingRuntime, caller: Principal, schedules: readonly Schedule[]): Promise<Plans> {
  const playlistIds = [...new Set(schedules.flatMap((s) => (s.type === 'PLAYLIST' && s.playlistId ? [s.playlistId] : [])))];
  const templateIds = [...new Set(schedules.flatMap((s) => (s.type === 'TEMPLATE' && s.templateId ? [s.templateId] : [])))];
  const [playlists, templates] = await Promise.all([
    playlistIds.length ? rt.content.existing(caller, 'playlist', playlistIds) : new Set<string>(),
    templateIds.length ? rt.content.existing(caller, 'template', templateIds) : new Set<string>(),
  ]);
  return schedules.map((s) =>
    planOf(s, s.type === 'PLAYLIST' ? playlists.has(s.playlistId ?? '') : s.type === 'TEMPLATE' ? templates.has(s.templateId ?? '') : false),
  );
}

/** The caller's device (NOT_FOUND naming deviceId otherwise), its zone and its schedules as plans. */
export async function deviceSchedules(rt: SchedulingRuntime, caller: Principal, deviceId: string): Promise<DeviceSchedules> {
  const device = (await rt.devices.devices(caller, [deviceId])).get(deviceId);
  if (!device) throw new AppError('NOT_FOUND', `device '${deviceId.slice(0, 100)}' was not found`, { field: 'deviceId' });
  const [zone, schedules] = await Promise.all([zoneOf(rt, caller, device.timezone), rt.repo.forDevice(caller.accountId, deviceId)]);
  return { deviceId, zone, plans: await plansOf(rt, caller, schedules) };
}

export interface NowPlayingResult extends Resolution<SchedulePlan<Schedule>> {
  deviceId: string;
  zone: string;
  at: number;
  /** The device's local date-time, YYYY-MM-DDTHH:MM:SS. */
  localTime: string;
}

export async function nowPlaying(rt: SchedulingRuntime, caller: Principal, deviceId: string, atArg?: string | null): Promise<NowPlayingResult> {
  const at = instantArg(atArg, 'at', rt.now());
  const { zone, plans } = await deviceSchedules(rt, caller, deviceId);
  return { deviceId, zone, at, localTime: new Date(wallAt(zone, at)).toISOString().slice(0, 19), ...resolve(plans, zone, at) };
}

export async function deviceTimeline(
  rt: SchedulingRuntime,
  caller: Principal,
  deviceId: string,
  fromArg: string,
  toArg: string,
): Promise<{ deviceId: string; zone: string; segments: Segment<SchedulePlan<Schedule>>[] }> {
  const from = instantArg(fromArg, 'from');
  const to = instantArg(toArg, 'to');
  if (to <= from) throw new AppError('BAD_USER_INPUT', 'to must be after from', { field: 'to' });
  if (to - from > MAX_TIMELINE_DAYS * 86_400_000) throw new AppError('BAD_USER_INPUT', `the range spans at most ${MAX_TIMELINE_DAYS} days`, { field: 'to' });
  const { zone, plans } = await deviceSchedules(rt, caller, deviceId);
  return { deviceId, zone, segments: timeline(plans, zone, from, to) };
}

/** A verdict in words. */
export function reasonOf(verdict: Verdict, s: Schedule): string {
  const window = `${(s.startTime ?? '00:00:00').slice(0, 5)}-${(s.endTime ?? '24:00:00').slice(0, 5)}`;
  switch (verdict) {
    case 'PLAYING':
      return `plays: within ${window} on an enabled day, highest rank`;
    case 'OUTRANKED':
      return `within ${window} but outranked (priority, then most recently modified)`;
    case 'CONTENT_MISSING':
      return `within ${window} but its ${s.type === 'TEMPLATE' ? `template '${s.templateId}'` : `playlist '${s.playlistId}'`} no longer exists`;
    case 'NOT_STARTED':
      return `starts on ${s.startDate?.slice(0, 10)}`;
    case 'ENDED':
      return `ended on ${s.endDate?.slice(0, 10)}`;
    case 'WRONG_WEEKDAY':
      return "today's weekday is not enabled";
    case 'OUTSIDE_HOURS':
      return `outside its hours ${window}`;
  }
}
