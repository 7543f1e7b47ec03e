/**
 * Assigning a schedule to many devices (fleet-wide bulk jobs of the devices service): the devices
 * are added to, or removed from, the schedule's device list through patchSchedule, so every check
 * (devices of the caller's account, the schedule's version) and the manifest invalidation apply.
 * A schedule lists at most MAX_SCHEDULE_DEVICES devices: the devices past it are refused one by
 * one with the reason, never silently dropped.
 */
import { AppError, type Principal } from '@pylon/kit';
import { MAX_SCHEDULE_DEVICES } from '../../domain/schedule-input.js';
import type { SchedulingRuntime } from '../../runtime.js';
import { patchSchedule } from './manage-schedules.js';

/** NOT_FOUND unless the schedule is the caller's. */
export async function checkSchedule(rt: SchedulingRuntime, caller: Principal, scheduleId: string): Promise<void> {
  await rt.repo.get(caller.accountId, scheduleId);
}

/** Adds (or removes) the devices; answers the devices refused, each with why. */
export async function assignScheduleDevices(
  rt: SchedulingRuntime,
  caller: Principal,
  scheduleId: string,
  deviceIds: readonly string[],
  mode: 'add' | 'remove',
): Promise<Map<string, { error: string; code: string }>> {
  const refused = new Map<string, { error: string; code: string }>();
  const current = await rt.repo.get(caller.accountId, scheduleId);
  const listed = current.deviceIds ?? [];
  let next: string[];
  if (mode === 'remove') {
    const drop = new Set(deviceIds);
    next = listed.filter((id) => !drop.has(id));
  } else {
    const have = new Set(listed);
    const added = [...new Set(deviceIds.filter((id) => !have.has(id)))];
    const room = Math.max(0, MAX_SCHEDULE_DEVICES - listed.length);
    for (const id of added.slice(room)) {
      refused.set(id, {
        error: `schedule '${current.id}' already lists ${MAX_SCHEDULE_DEVICES} devices (at most ${MAX_SCHEDULE_DEVICES}); target a tag or a group for more`,
        code: 'UNPROCESSABLE',
      });
    }
    next = [...listed, ...added.slice(0, room)];
  }
  if (next.length === listed.length && next.every((id, i) => id === listed[i])) return refused;
  try {
    await patchSchedule(rt, caller, current.id, [{ op: 'replace', path: '/deviceIds', value: next }]);
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError('UNAVAILABLE', 'the schedule could not be changed; run the job again');
  }
  return refused;
}
