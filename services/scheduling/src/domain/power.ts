/**
 * Power schedules: when a screen's display is on. Pure: no I/O, the clock and the zone passed in.
 *
 *   weekly windows (weekdays, on HH:MM, off HH:MM) ──┐
 *   exceptions by date (no windows: off all day;     ├──> on-intervals in the device's zone
 *                       windows: those hours instead)┘
 *
 * Invariants:
 * - A window belongs to the local day it starts on; `off` at or before `on` runs past midnight into
 *   the next day ("22:00"-"06:00"), `off` "24:00" ends at midnight. An exception replaces the windows
 *   that START on its date; a window of the evening before still runs into it.
 * - Wall times map to instants by zone-clock's DST rule (the first instant the clock shows them), so
 *   an "on" inside the spring-forward gap comes on at the jump, and no window runs twice in the
 *   fall-back overlap.
 * - Overlapping or touching windows merge: the display has no edge between them.
 * - A screen with no power schedule is always on; one whose schedule has no window ahead within
 *   HORIZON_DAYS is off with no known end.
 */
import { z } from 'zod';
import { AppError, parseInput } from '@pylon/kit';
import { DAY_MS, dateOfDay, dayAt, instantOfWall, isTimeZone, weekdayOf, wallAt } from './zone-clock.js';

export const POWER_WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type PowerWeekday = (typeof POWER_WEEKDAYS)[number];
export const POWER_SCOPES = ['DEVICE', 'GROUP', 'TAG'] as const;
export type PowerScope = (typeof POWER_SCOPES)[number];

/** How far ahead a state's end is looked for. */
export const HORIZON_DAYS = 14;
export const MAX_POWER_WINDOWS = 28;
export const MAX_POWER_EXCEPTIONS = 366;

export interface PowerHours {
  /** HH:MM (or HH:MM:SS), 00:00-23:59. */
  on: string;
  /** HH:MM (or HH:MM:SS), 00:00-24:00; at or before `on`: the next day. */
  off: string;
}
export interface PowerWindow extends PowerHours {
  weekdays: PowerWeekday[];
}
export interface PowerException {
  /** YYYY-MM-DD, the device's local date. */
  date: string;
  /** Empty: the display stays off that day. */
  windows: PowerHours[];
}

/** What a schedule says, whatever it targets. */
export interface PowerRules {
  windows: PowerWindow[];
  exceptions: PowerException[];
}

export interface PowerScheduleRecord extends PowerRules {
  name: string;
  scope: PowerScope;
  /** A device id, a device group id, or a tag, by scope. */
  target: string;
}

/** [from, to) in epoch ms. */
export type Interval = [number, number];

/** Seconds into the day of HH:MM or HH:MM:SS. */
const secondsOf = (t: string) => Number(t.slice(0, 2)) * 3600 + Number(t.slice(3, 5)) * 60 + Number(t.slice(6, 8) || 0);

/** The on-intervals of the rules in `zone` that meet [from, to), merged and clipped. */
export function onIntervals(rules: PowerRules, zone: string, from: number, to: number): Interval[] {
  const raw: Interval[] = [];
  // A window starting the day before `from` may still run (past midnight).
  for (let day = dayAt(zone, from) - 1, last = dayAt(zone, to); day <= last; day++) {
    const date = dateOfDay(day);
    const exception = rules.exceptions.find((e) => e.date === date);
    const weekday = POWER_WEEKDAYS[weekdayOf(day)]!;
    const hours = exception ? exception.windows : rules.windows.filter((w) => w.weekdays.includes(weekday));
    for (const h of hours) {
      const on = secondsOf(h.on);
      const off = secondsOf(h.off);
      const start = instantOfWall(zone, day * DAY_MS + on * 1000);
      const end = instantOfWall(zone, (off <= on ? day + 1 : day) * DAY_MS + off * 1000);
      if (end > start) raw.push([start, end]);
    }
  }
  raw.sort((a, b) => a[0] - b[0]);
  const merged: Interval[] = [];
  for (const [s, e] of raw) {
    const prev = merged[merged.length - 1];
    if (prev && s <= prev[1]) prev[1] = Math.max(prev[1], e);
    else merged.push([s, e]);
  }
  return merged.filter(([s, e]) => e > from && s < to).map(([s, e]) => [Math.max(s, from), Math.min(e, to)]);
}

export interface PowerState {
  on: boolean;
  /** When the state changes next; null: not within HORIZON_DAYS. */
  until: number | null;
  /** When the current state began, if within a day (an on-window's start: the grace of offline alerts). */
  since: number | null;
}

/** The display's state at `t`. */
export function powerStateAt(rules: PowerRules, zone: string, t: number): PowerState {
  const list = onIntervals(rules, zone, t - DAY_MS, t + HORIZON_DAYS * DAY_MS);
  const i = list.findIndex(([, e]) => e > t);
  const cur = i >= 0 ? list[i]! : null;
  if (cur && cur[0] <= t) {
    // Clipped at the horizon's start: unknown beyond a day back.
    const since = cur[0] > t - DAY_MS ? cur[0] : null;
    return { on: true, until: cur[1] < t + HORIZON_DAYS * DAY_MS ? cur[1] : null, since };
  }
  const prevEnd = i > 0 ? list[i - 1]![1] : i < 0 && list.length ? list[list.length - 1]![1] : null;
  return { on: false, until: cur ? cur[0] : null, since: prevEnd };
}

/** HH:MM of instant `t` on the device's clock. */
export const localHhmm = (zone: string, t: number) => new Date(wallAt(zone, t)).toISOString().slice(11, 16);

// ---- input --------------------------------------------------------------------------------

// Seconds are optional (HH:MM:SS, as schedules' times take them).
const onTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'must be a time HH:MM from 00:00 to 23:59');
const offTime = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?|24:00(:00)?)$/, 'must be a time HH:MM from 00:00 to 24:00');
const hours = { on: onTime, off: offTime };
const dateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'must be a real date');

const targetSchema = z
  .object({
    deviceId: z.string().min(1).max(200).optional(),
    groupId: z.string().min(1).max(200).optional(),
    tag: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

const inputSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    target: targetSchema,
    windows: z.array(z.object({ weekdays: z.array(z.enum(POWER_WEEKDAYS)).min(1).max(7), ...hours }).strict()).max(MAX_POWER_WINDOWS),
    exceptions: z
      .array(z.object({ date: dateString, windows: z.array(z.object(hours).strict()).max(4).optional() }).strict())
      .max(MAX_POWER_EXCEPTIONS)
      .optional(),
  })
  .strict();

const bad = (field: string, message: string) => new AppError('BAD_USER_INPUT', message, { field });

/** Validates a power schedule input; every refusal names its field. The target's id is checked by the caller. */
export function powerScheduleFromInput(input: unknown): PowerScheduleRecord {
  const v = parseInput(inputSchema, input);
  const given = (['deviceId', 'groupId', 'tag'] as const).filter((k) => v.target[k] !== undefined);
  if (given.length !== 1) throw bad('target', 'target must name exactly one of deviceId, groupId, tag');
  const key = given[0]!;
  const scope: PowerScope = key === 'deviceId' ? 'DEVICE' : key === 'groupId' ? 'GROUP' : 'TAG';
  const check = (h: PowerHours, field: string) => {
    if (secondsOf(h.on) === secondsOf(h.off)) throw bad(`${field}.off`, `${field}.off must differ from on (for a whole day use on 00:00, off 24:00)`);
  };
  v.windows.forEach((w, i) => check(w, `windows[${i}]`));
  const exceptions = (v.exceptions ?? []).map((e, i) => {
    (e.windows ?? []).forEach((h, j) => check(h, `exceptions[${i}].windows[${j}]`));
    return { date: e.date, windows: e.windows ?? [] };
  });
  const dup = exceptions.findIndex((e, i) => exceptions.findIndex((o) => o.date === e.date) !== i);
  if (dup >= 0) throw bad(`exceptions[${dup}].date`, `exceptions[${dup}].date ${exceptions[dup]!.date} is given twice`);
  const target = v.target[key]!;
  return {
    name: v.name ?? `${scope.toLowerCase()} ${target}`.slice(0, 200),
    scope,
    target,
    windows: v.windows.map((w) => ({ weekdays: [...new Set(w.weekdays)], on: w.on, off: w.off })),
    exceptions: exceptions.sort((a, b) => a.date.localeCompare(b.date)),
  };
}

/** A zone argument (`timezone` of devicePower previews), naming the field when unknown. */
export function checkedZone(zone: string, field: string): string {
  if (!isTimeZone(zone)) throw bad(field, `${field} '${zone.slice(0, 60)}' is not an IANA time zone`);
  return zone;
}

/** A device as power schedules target it. */
export interface PowerDevice {
  id: string;
  groupId: string | null;
  tags: readonly string[];
}

/**
 * The schedule that governs a device: its own, else the nearest of its group and the groups above,
 * else the schedule of its first tag (by name) that has one; null: always on.
 */
export function governingSchedule<S extends Pick<PowerScheduleRecord, 'scope' | 'target'>>(
  schedules: readonly S[],
  device: PowerDevice,
  groups: ReadonlyMap<string, string | null>,
): S | null {
  const of = (scope: PowerScope, target: string) => schedules.find((s) => s.scope === scope && s.target === target);
  const own = of('DEVICE', device.id);
  if (own) return own;
  const seen = new Set<string>();
  for (let g = device.groupId; g && !seen.has(g); g = groups.get(g) ?? null) {
    seen.add(g);
    const found = of('GROUP', g);
    if (found) return found;
  }
  for (const tag of [...device.tags].sort()) {
    const found = of('TAG', tag);
    if (found) return found;
  }
  return null;
}
