/**
 * Emergency overrides: start, cancel, read with per-screen states, a screen's acknowledgements, and
 * the settling of the instants that pass on their own (a future start, the end of the time box).
 * Every id a caller passes (media, playlist, devices, groups) is checked to be the caller's; each
 * refusal names its field. Every transition is stored before it is announced (push event, manifest
 * wake-up), and stored with an expected version so that replicas announce it once.
 */
import { AppError, isoSeconds, type Principal } from '@pylon/kit';
import {
  isLive,
  MAX_OVERRIDE_DEVICES,
  overrideFromInput,
  resolveTarget,
  screenState,
  stateAt,
  winningOverride,
  type OverrideRecord,
  type OverrideState,
  type ScreenState,
} from '../../domain/override.js';
import type { SchedulingRuntime } from '../../runtime.js';
import { forgetManifests } from '../player-manifest/manifest-changes.js';
import type { Override } from './override.repository.js';

export const MAX_OVERRIDE_LIST = 200;

export interface ScreenView {
  deviceId: string;
  state: ScreenState;
  shownAt: string | null;
  stoppedAt: string | null;
}

export interface OverrideView {
  override: Override;
  state: OverrideState;
  screens: ScreenView[];
}

const iso = (t: number) => isoSeconds(t);

const payloadOf = (o: Override, reason?: 'cancelled' | 'expired') => ({
  override_id: o.id,
  name: o.name,
  device_count: o.deviceIds.length,
  starts_at: isoSeconds(o.startsAt),
  ends_at: isoSeconds(o.endsAt),
  ...(reason ? { reason } : {}),
});

/** Checks the content's and the target's ids against the caller's account, naming the field at fault. */
async function checkedTargets(rt: SchedulingRuntime, caller: Principal, r: Pick<OverrideRecord, 'content' | 'target'>): Promise<string[]> {
  const c = r.content;
  if (c.type === 'MEDIA' && !(await rt.content.playerMedia(caller, [c.mediaId])).has(c.mediaId))
    throw new AppError('BAD_USER_INPUT', `media '${c.mediaId.slice(0, 100)}' was not found`, { field: 'content.mediaId' });
  if (c.type === 'PLAYLIST' && !(await rt.content.existing(caller, 'playlist', [c.playlistId])).has(c.playlistId))
    throw new AppError('BAD_USER_INPUT', `playlist '${c.playlistId.slice(0, 100)}' was not found`, { field: 'content.playlistId' });
  const fleet = await rt.devices.fleet(caller);
  const known = new Set(fleet.devices.map((d) => d.id));
  const missing = r.target.deviceIds.findIndex((id) => !known.has(id));
  if (missing >= 0)
    throw new AppError('BAD_USER_INPUT', `device '${r.target.deviceIds[missing]!.slice(0, 100)}' (item ${missing} of the devices) was not found`, {
      field: 'target.deviceIds',
    });
  const badGroup = r.target.groupIds.find((g) => !fleet.groups.has(g));
  if (badGroup !== undefined) throw new AppError('BAD_USER_INPUT', `device group '${badGroup.slice(0, 100)}' was not found`, { field: 'target.groupIds' });
  const ids = resolveTarget(r.target, fleet.devices, fleet.groups);
  if (ids.length > MAX_OVERRIDE_DEVICES)
    throw new AppError('BAD_USER_INPUT', `the target reaches ${ids.length} screens; at most ${MAX_OVERRIDE_DEVICES}`, { field: 'target' });
  return ids;
}

export async function startOverride(rt: SchedulingRuntime, caller: Principal, input: unknown, startedBy = caller.userName): Promise<OverrideView> {
  const now = rt.now();
  const base = overrideFromInput(input, now);
  const deviceIds = await checkedTargets(rt, caller, base);
  const activeNow = Date.parse(base.startsAt) <= now;
  const created = await rt.overrides.add(caller.accountId, {
    ...base,
    deviceIds,
    cancelledAt: null,
    open: true,
    startAnnounced: activeNow,
    startedBy: startedBy.slice(0, 200),
  });
  await forgetManifests(rt, caller.accountId, deviceIds);
  if (activeNow) rt.pushEvents?.emit(caller.accountId, 'override.started', payloadOf(created), now);
  armTimers(rt, created);
  return viewOf(rt, caller, created);
}

export async function cancelOverride(rt: SchedulingRuntime, caller: Principal, id: string): Promise<OverrideView> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await rt.overrides.get(caller.accountId, id);
    const state = stateAt(current, rt.now());
    if (state === 'CANCELLED' || state === 'ENDED')
      throw new AppError('UNPROCESSABLE', `override '${current.id}' is already ${state.toLowerCase()}`, { field: 'id' });
    const cancelled = await rt.overrides.transition(caller.accountId, current, { cancelledAt: iso(rt.now()), open: false });
    if (!cancelled) continue; // a settle or another cancel came first: read again
    disarmTimers(rt, cancelled.id);
    await forgetManifests(rt, caller.accountId, cancelled.deviceIds);
    rt.pushEvents?.emit(caller.accountId, 'override.ended', payloadOf(cancelled, 'cancelled'));
    return viewOf(rt, caller, cancelled);
  }
  throw new AppError('VERSION_CONFLICT', 'the override changed while it was being cancelled; retry', { field: 'id' });
}

/**
 * Announces the instants that passed by themselves: a future start that came (override.started),
 * a time box that ran out (override.ended), each once across replicas (expected versions), with the
 * targeted screens woken. Called by the timers and by every read, so a restart loses nothing.
 */
export async function settle(rt: SchedulingRuntime, tenant: string, overrides: readonly Override[]): Promise<Override[]> {
  const now = rt.now();
  const out: Override[] = [];
  for (const o of overrides) {
    const state = stateAt(o, now);
    let next: Override | null = o;
    if (o.open && state === 'ENDED') {
      next = await rt.overrides.transition(tenant, o, { open: false, startAnnounced: true });
      if (next) {
        await forgetManifests(rt, tenant, o.deviceIds);
        rt.pushEvents?.emit(tenant, 'override.ended', payloadOf(next, 'expired'), Date.parse(o.endsAt!));
      }
    } else if (o.open && state === 'ACTIVE' && !o.startAnnounced) {
      next = await rt.overrides.transition(tenant, o, { startAnnounced: true });
      if (next) {
        await forgetManifests(rt, tenant, o.deviceIds);
        rt.pushEvents?.emit(tenant, 'override.started', payloadOf(next), Date.parse(o.startsAt));
      }
    }
    out.push(next ?? (await rt.overrides.get(tenant, o.id)));
  }
  return out;
}

/** Timers at the start (when ahead) and the end (when given) of an override, in this process: screens wake on time. */
export function armTimers(rt: SchedulingRuntime, o: Override): void {
  disarmTimers(rt, o.id);
  const timers: NodeJS.Timeout[] = [];
  for (const at of [o.startsAt, o.endsAt]) {
    const delay = at ? Date.parse(at) - rt.now() : -1;
    // Beyond setTimeout's range the reads settle it (every ping of a targeted screen reads it).
    if (delay < 0 || delay > 2 ** 31 - 1) continue;
    const t = setTimeout(() => {
      rt.overrides
        .get(o.accountId, o.id)
        .then((fresh) => settle(rt, o.accountId, [fresh]))
        .catch((e: unknown) => rt.logger?.warn({ err: e, overrideId: o.id }, 'override not settled on time; the next read settles it'));
    }, delay + 5);
    t.unref();
    timers.push(t);
  }
  if (timers.length) rt.overrideTimers.set(o.id, timers);
}

export function disarmTimers(rt: SchedulingRuntime, id: string): void {
  for (const t of rt.overrideTimers.get(id) ?? []) clearTimeout(t);
  rt.overrideTimers.delete(id);
}

async function viewOf(rt: SchedulingRuntime, caller: Principal, o: Override): Promise<OverrideView> {
  const now = rt.now();
  const [acks, online] = await Promise.all([rt.overrides.screensOf(caller.accountId, o.id), rt.devices.online(caller, o.deviceIds)]);
  return {
    override: o,
    state: stateAt(o, now),
    screens: o.deviceIds.map((deviceId) => {
      const ack = acks.get(deviceId);
      return { deviceId, state: screenState(o, ack, online.has(deviceId), now), shownAt: isoSeconds(ack?.shownAt), stoppedAt: isoSeconds(ack?.stoppedAt) };
    }),
  };
}

export async function getOverride(rt: SchedulingRuntime, caller: Principal, id: string): Promise<OverrideView> {
  const [o] = await settle(rt, caller.accountId, [await rt.overrides.get(caller.accountId, id)]);
  return viewOf(rt, caller, o!);
}

export async function listOverrides(
  rt: SchedulingRuntime,
  caller: Principal,
  args: { openOnly?: boolean | null; limit?: number | null },
): Promise<OverrideView[]> {
  const limit = args.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_OVERRIDE_LIST)
    throw new AppError('BAD_USER_INPUT', `limit must be 1 to ${MAX_OVERRIDE_LIST}`, { field: 'limit' });
  const found = await settle(rt, caller.accountId, await rt.overrides.list(caller.accountId, limit, args.openOnly === true));
  return Promise.all(found.map((o) => viewOf(rt, caller, o)));
}

/**
 * What a screen holds: the override it shows now (the winner among those naming it) or, when none
 * shows, the next one to start, so the player switches at the instant by its own clock.
 */
export async function overrideForDevice(rt: SchedulingRuntime, device: { accountId: string; id: string }): Promise<Override | null> {
  const naming = (await rt.overrides.open(device.accountId)).filter((o) => o.deviceIds.includes(device.id));
  if (!naming.length) return null;
  const now = rt.now();
  const live = (await settle(rt, device.accountId, naming)).filter((o) => isLive(o, now));
  return winningOverride(live, now) ?? live.filter((o) => stateAt(o, now) === 'SCHEDULED').sort((a, b) => a.startsAt.localeCompare(b.startsAt))[0] ?? null;
}

/**
 * A screen's acknowledgement (player API): SHOWING when it put the override on the glass, ENDED
 * when it took it off. Only overrides that name the screen; the first of each kind counts (a retry
 * changes nothing and is announced once). Audited as the device.
 */
export async function acknowledgeOverride(
  rt: SchedulingRuntime,
  device: { accountId: string; id: string; name?: string; groupId?: string | null; tags?: readonly string[] },
  overrideId: string,
  body: unknown,
): Promise<{ override_id: string; device_id: string; state: ScreenState }> {
  const state = (body as { state?: unknown } | null)?.state;
  if (state !== 'SHOWING' && state !== 'ENDED') throw new AppError('BAD_USER_INPUT', 'state must be SHOWING or ENDED', { field: 'state' });
  const o = await rt.overrides.get(device.accountId, overrideId.slice(0, 200)).catch(() => null);
  if (!o || !o.deviceIds.includes(device.id)) throw new AppError('NOT_FOUND', 'no override of this screen has that id', { field: 'overrideId' });
  const at = iso(rt.now());
  const recorded = await rt.overrides.acknowledge(device.accountId, o.id, device.id, state === 'SHOWING' ? 'shown' : 'stopped', at);
  if (recorded) {
    rt.pushEvents?.emit(device.accountId, 'override.acknowledged', {
      device_id: device.id,
      device_group_id: device.groupId ?? null,
      device_tags: [...(device.tags ?? [])],
      override_id: o.id,
      state,
      acknowledged_at: at,
    });
    rt.audit?.push({
      event_id: crypto.randomUUID(),
      account_id: device.accountId,
      timestamp: new Date(rt.now()).toISOString(),
      event_type: 'Write',
      user_id: `device:${device.id}`,
      user_name: (device.name ?? device.id).slice(0, 200),
      http_method: 'POST',
      controller_name: 'Overrides',
      action_name: state === 'SHOWING' ? 'AcknowledgeOverrideShown' : 'AcknowledgeOverrideEnded',
      ip_address: '',
      response_code: 200,
      interface: 'player',
    });
  }
  const acks = await rt.overrides.screensOf(device.accountId, o.id);
  return { override_id: o.id, device_id: device.id, state: screenState(o, acks.get(device.id), true, rt.now()) };
}

/** The override a device shows at `at` (nowPlaying), with its screens' states; null when none. */
export async function overrideAt(rt: SchedulingRuntime, caller: Principal, deviceId: string, at: number): Promise<OverrideView | null> {
  const naming = (await settle(rt, caller.accountId, await rt.overrides.open(caller.accountId))).filter((o) => o.deviceIds.includes(deviceId));
  const winner = winningOverride(naming, at);
  return winner ? viewOf(rt, caller, winner) : null;
}
