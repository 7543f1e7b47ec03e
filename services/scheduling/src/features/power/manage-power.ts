/**
 * Power schedules: set (one per device, group or tag), delete, read, and what one device's display
 * does at an instant. A change re-plans the display edges of the account's screens (the sweeper in
 * power-edges.ts sends display_on / display_off at them) and wakes their manifests, which carry the
 * on-windows the web player follows by its own clock. Ids the caller passes are checked to be the
 * caller's; each refusal names its field.
 */
import { AppError, devicePrincipal, type Principal } from '@pylon/kit';
import { governingSchedule, onIntervals, powerScheduleFromInput, powerStateAt, type PowerDevice, type PowerState } from '../../domain/power.js';
import { DAY_MS } from '../../domain/zone-clock.js';
import type { SchedulingRuntime } from '../../runtime.js';
import { zoneOf } from '../now-playing/now-playing.js';
import { forgetManifests } from '../player-manifest/manifest-changes.js';
import type { PowerSchedule } from './power-schedule.repository.js';

/** Days of on-windows a manifest carries, from the start of the current UTC day (a screen offline that long still follows them). */
export const MANIFEST_POWER_DAYS = 3;

export interface DevicePower extends PowerState {
  deviceId: string;
  zone: string;
  /** The governing schedule; null: no schedule, always on. */
  schedule: PowerSchedule | null;
}

interface Fleet {
  devices: PowerDevice[];
  groups: Map<string, string | null>;
}

/** The account's devices with group and tags, read only when a group or tag schedule needs them. */
async function fleetFor(rt: SchedulingRuntime, caller: Principal, schedules: readonly PowerSchedule[], ids?: readonly string[]): Promise<Fleet> {
  if (ids && schedules.every((s) => s.scope === 'DEVICE')) return { devices: ids.map((id) => ({ id, groupId: null, tags: [] })), groups: new Map() };
  const f = await rt.devices.fleet(caller);
  const wanted = ids ? new Set(ids) : null;
  return { devices: f.devices.filter((d) => !wanted || wanted.has(d.id)), groups: f.groups };
}

/** Each device's governing schedule and zone (devices unknown to the caller are left out). */
async function governed(
  rt: SchedulingRuntime,
  caller: Principal,
  ids?: readonly string[],
): Promise<Map<string, { schedule: PowerSchedule | null; zone: string }>> {
  const schedules = await rt.power.all(caller.accountId);
  const fleet = await fleetFor(rt, caller, schedules, ids);
  const facts = await rt.devices.devices(
    caller,
    fleet.devices.map((d) => d.id),
  );
  const out = new Map<string, { schedule: PowerSchedule | null; zone: string }>();
  for (const d of fleet.devices) {
    const f = facts.get(d.id);
    if (!f) continue;
    out.set(d.id, { schedule: governingSchedule(schedules, d, fleet.groups), zone: await zoneOf(rt, caller, f.timezone) });
  }
  return out;
}

/** What the device's display does at `at`; NOT_FOUND naming deviceId for an unknown or foreign device. */
export async function devicePower(rt: SchedulingRuntime, caller: Principal, deviceId: string, at = rt.now()): Promise<DevicePower> {
  const g = (await governed(rt, caller, [deviceId])).get(deviceId);
  if (!g) throw new AppError('NOT_FOUND', `device '${deviceId.slice(0, 100)}' was not found`, { field: 'deviceId' });
  const state = g.schedule ? powerStateAt(g.schedule, g.zone, at) : { on: true, until: null, since: null };
  return { deviceId, zone: g.zone, schedule: g.schedule, ...state };
}

/**
 * The off-hours within [from, to) of the caller's devices that have a power schedule (analytics'
 * uptime counts only the other minutes), by device id.
 */
export async function offWindows(rt: SchedulingRuntime, caller: Principal, from: number, to: number): Promise<Map<string, [number, number][]>> {
  const out = new Map<string, [number, number][]>();
  if (!(await rt.power.all(caller.accountId)).length) return out;
  for (const [id, g] of await governed(rt, caller)) {
    if (!g.schedule) continue;
    const gaps: [number, number][] = [];
    let cursor = from;
    for (const [s, e] of onIntervals(g.schedule, g.zone, from, to)) {
      if (s > cursor) gaps.push([cursor, s]);
      cursor = Math.max(cursor, e);
    }
    if (cursor < to) gaps.push([cursor, to]);
    out.set(id, gaps);
  }
  return out;
}

/** The manifest's `power`: on-windows from the start of the current UTC day for MANIFEST_POWER_DAYS; null without a schedule. */
export async function manifestPower(rt: SchedulingRuntime, caller: Principal, deviceId: string): Promise<ManifestPower | null> {
  const g = (await governed(rt, caller, [deviceId])).get(deviceId);
  if (!g?.schedule) return null;
  const from = Math.floor(rt.now() / DAY_MS) * DAY_MS;
  const to = from + MANIFEST_POWER_DAYS * DAY_MS;
  const iso = (t: number) => `${new Date(t).toISOString().slice(0, 19)}Z`;
  return {
    schedule_id: g.schedule.id,
    timezone: g.zone,
    from: iso(from),
    until: iso(to),
    on: onIntervals(g.schedule, g.zone, from, to).map(([s, e]) => ({ from: iso(s), to: iso(e) })),
  };
}

/**
 * The power schedule in a manifest: the display is on while the server's time lies in one of `on`,
 * off otherwise, between `from` and `until`; past `until` (a screen offline for days) it stays on.
 */
export interface ManifestPower {
  schedule_id: string;
  timezone: string;
  from: string;
  until: string;
  on: { from: string; to: string }[];
}

/**
 * After a change: every screen of the account gets its next edge (or none), a screen whose state
 * changed now gets its command at once, and the manifests are woken.
 */
async function replan(rt: SchedulingRuntime, caller: Principal, before: Map<string, { schedule: PowerSchedule | null; zone: string }>): Promise<void> {
  const now = rt.now();
  const after = await governed(rt, caller);
  const stateOf = (g: { schedule: PowerSchedule | null; zone: string } | undefined) =>
    g?.schedule ? powerStateAt(g.schedule, g.zone, now) : { on: true, until: null, since: null };
  const changed: { on: string[]; off: string[] } = { on: [], off: [] };
  for (const [id, g] of after) {
    const prev = stateOf(before.get(id));
    const next = stateOf(g);
    if (prev.on !== next.on) changed[next.on ? 'on' : 'off'].push(id);
    if (g.schedule && next.until !== null) await rt.power.watch(caller.accountId, id, next.until);
    else await rt.power.unwatch(id);
  }
  if (rt.devices.display) {
    if (changed.on.length) await rt.devices.display(caller.accountId, changed.on, 'display_on');
    if (changed.off.length) await rt.devices.display(caller.accountId, changed.off, 'display_off');
  }
  await forgetManifests(rt, caller.accountId, after.keys());
}

/**
 * Devices that changed (group, tags, zone) or were added: their next edge follows the schedule that
 * governs them now (the sweeper sends the state at that edge; a device that lost its schedule is
 * unwatched). Cheap when the account has no power schedule: one read.
 */
export async function replanDevices(rt: SchedulingRuntime, accountId: string, deviceIds: readonly string[]): Promise<void> {
  if (!deviceIds.length || !(await rt.power.all(accountId)).length) return;
  const caller = powerPrincipal(accountId);
  const found = await governed(rt, caller, deviceIds);
  for (const id of deviceIds) {
    const g = found.get(id);
    const until = g?.schedule ? powerStateAt(g.schedule, g.zone, rt.now()).until : null;
    if (until !== null) await rt.power.watch(accountId, id, until);
    else await rt.power.unwatch(id);
  }
}

/** Who the power schedule reads devices as (the edge sweeper, device changes): the account, no user, reading devices only. */
export const powerPrincipal = (accountId: string): Principal => ({
  ...devicePrincipal(accountId, 'power-schedule'),
  userId: 'power-schedule',
  policies: ['Devices_View'],
});

/** Checks the target's id against the caller's account. */
async function checkTarget(rt: SchedulingRuntime, caller: Principal, scope: string, target: string): Promise<void> {
  if (scope === 'DEVICE' && !(await rt.devices.devices(caller, [target])).has(target))
    throw new AppError('BAD_USER_INPUT', `device '${target.slice(0, 100)}' was not found`, { field: 'target.deviceId' });
  if (scope === 'GROUP' && !(await rt.devices.fleet(caller)).groups.has(target))
    throw new AppError('BAD_USER_INPUT', `device group '${target.slice(0, 100)}' was not found`, { field: 'target.groupId' });
}

export async function setPowerSchedule(rt: SchedulingRuntime, caller: Principal, input: unknown): Promise<PowerSchedule> {
  const record = powerScheduleFromInput(input);
  await checkTarget(rt, caller, record.scope, record.target);
  const before = await governed(rt, caller);
  const saved = await rt.power.put(caller.accountId, record);
  await replan(rt, caller, before);
  return saved;
}

export async function deletePowerSchedule(rt: SchedulingRuntime, caller: Principal, id: string): Promise<PowerSchedule> {
  const found = await rt.power.get(caller.accountId, id);
  const before = await governed(rt, caller);
  await rt.power.remove(caller.accountId, found.id);
  await replan(rt, caller, before);
  return found;
}

export const getPowerSchedule = (rt: SchedulingRuntime, caller: Principal, id: string) => rt.power.get(caller.accountId, id);
export const listPowerSchedules = (rt: SchedulingRuntime, caller: Principal) => rt.power.all(caller.accountId);
