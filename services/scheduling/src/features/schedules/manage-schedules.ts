/**
 * Schedules: create, replace, JSON Patch, delete. Every id a caller passes (playlist, template,
 * devices, group, organization) is checked to be the caller's; each refusal names its field.
 */
import jsonpatch from 'fast-json-patch';
import { AppError, type Principal } from '@pylon/kit';
import { inputOf, scheduleFromInput } from '../../domain/schedule-input.js';
import type { ScheduleRecord } from '../../domain/schedule.js';
import type { Schedule } from '../../shared/schedule.repository.js';
import type { SchedulingRuntime } from '../../runtime.js';
import { forgetManifests } from '../player-manifest/manifest-changes.js';

/** The record with every foreign reference checked against the caller's account. */
async function checkedRecord(rt: SchedulingRuntime, caller: Principal, input: unknown): Promise<{ record: ScheduleRecord; expectedVersion: number | null }> {
  const { record, expectedVersion } = scheduleFromInput(input);
  const tenant = caller.accountId;
  const [group, playlists, templates, devices, orgOk] = await Promise.all([
    rt.repo.groupTree.groupFor(tenant, record.groupId),
    record.playlistId ? rt.content.existing(caller, 'playlist', [record.playlistId]) : null,
    record.templateId ? rt.content.existing(caller, 'template', [record.templateId]) : null,
    record.deviceIds.length ? rt.devices.devices(caller, record.deviceIds) : null,
    record.orgId ? rt.accounts.hasOrganization(caller, record.orgId) : true,
  ]);
  if (playlists && !playlists.has(record.playlistId!))
    throw new AppError('BAD_USER_INPUT', `playlist '${record.playlistId!.slice(0, 100)}' was not found`, { field: 'playlistId' });
  if (templates && !templates.has(record.templateId!))
    throw new AppError('BAD_USER_INPUT', `template '${record.templateId!.slice(0, 100)}' was not found`, { field: 'templateId' });
  if (devices) {
    const missing = record.deviceIds.findIndex((id) => !devices.has(id));
    if (missing >= 0)
      throw new AppError('BAD_USER_INPUT', `device '${record.deviceIds[missing]!.slice(0, 100)}' (item ${missing} of the devices) was not found`, {
        field: 'deviceIds',
      });
  }
  if (!orgOk) throw new AppError('BAD_USER_INPUT', `organization '${record.orgId!.slice(0, 100)}' was not found`, { field: 'orgId' });
  return { record: { ...record, ...group }, expectedVersion };
}

export async function createSchedule(rt: SchedulingRuntime, caller: Principal, input: unknown): Promise<Schedule> {
  const { record } = await checkedRecord(rt, caller, input);
  const created = await rt.repo.add(caller.accountId, record);
  await forgetManifests(rt, caller.accountId, record.deviceIds);
  rt.pushEvents?.emit(caller.accountId, 'schedule.changed', { schedule_id: created.id, change: 'created' });
  return created;
}

export async function updateSchedule(rt: SchedulingRuntime, caller: Principal, id: string, input: unknown): Promise<Schedule> {
  const current = await rt.repo.get(caller.accountId, id);
  const { record, expectedVersion } = await checkedRecord(rt, caller, input);
  const updated = await rt.repo.replace(caller.accountId, current.id, record, expectedVersion ?? undefined);
  await forgetManifests(rt, caller.accountId, [...(current.deviceIds ?? []), ...record.deviceIds]);
  rt.pushEvents?.emit(caller.accountId, 'schedule.changed', { schedule_id: updated.id, change: 'updated' });
  return updated;
}

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
  from?: string | null;
}

const PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
const PROTOTYPE_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/** JSON Patch over the schedule's input view; the result is validated as a whole, like an update. */
export async function patchSchedule(rt: SchedulingRuntime, caller: Principal, id: string, operations: readonly PatchOperation[]): Promise<Schedule> {
  const current = await rt.repo.get(caller.accountId, id);
  if (operations.length > 100) throw new AppError('BAD_USER_INPUT', 'at most 100 operations', { field: 'operations' });
  const view = inputOf(current);
  operations.forEach((o, i) => {
    if (!PATCH_OPS.has(o.op))
      throw new AppError('BAD_USER_INPUT', `operations[${i}].op must be one of ${[...PATCH_OPS].join(', ')}`, { field: `operations[${i}].op` });
    for (const [member, pointer] of [
      ['path', o.path],
      ['from', o.from],
    ] as const) {
      if (pointer === undefined || pointer === null) continue;
      const segments = pointer.split('/').slice(1);
      if (!pointer.startsWith('/') || segments.some((s) => PROTOTYPE_SEGMENTS.has(s)) || !Object.hasOwn(view, segments[0]!)) {
        throw new AppError('BAD_USER_INPUT', `operations[${i}].${member} '${pointer.slice(0, 100)}' does not name a schedule property`, {
          field: `operations[${i}].${member}`,
        });
      }
    }
  });
  let patched: Record<string, unknown>;
  try {
    const ops = operations.map((o) => ({ ...o, ...(o.from === null ? { from: undefined } : {}) })) as jsonpatch.Operation[];
    patched = jsonpatch.applyPatch(structuredClone(view), ops, true, false, true).newDocument;
  } catch (e) {
    const index = (e as { index?: number }).index;
    throw new AppError('BAD_USER_INPUT', `operations${index === undefined ? '' : `[${index}]`} could not be applied: ${(e as Error).message.split('\n')[0]}`, {
      field: index === undefined ? 'operations' : `operations[${index}]`,
    });
  }
  // Priority travels by name in the input view; the input takes its rank.
  const ranks: Record<string, number> = { LOWEST: 1, LOW: 2, NORMAL: 3, HIGH: 4, HIGHEST: 5 };
  if (typeof patched.priority === 'string') {
    const rank = ranks[patched.priority.toUpperCase()];
    if (rank === undefined) throw new AppError('BAD_USER_INPUT', `priority must be one of: ${Object.keys(ranks).join(', ')}`, { field: 'priority' });
    patched.priority = rank;
  }
  if (typeof patched.type === 'string') patched.type = patched.type.toUpperCase();
  return updateSchedule(rt, caller, current.id, { ...patched, expectedVersion: current.version });
}

export async function deleteSchedule(rt: SchedulingRuntime, caller: Principal, id: string): Promise<{ scheduleId: string }> {
  const current = await rt.repo.get(caller.accountId, id);
  await rt.repo.remove(caller.accountId, current.id);
  await forgetManifests(rt, caller.accountId, current.deviceIds ?? []);
  rt.pushEvents?.emit(caller.accountId, 'schedule.changed', { schedule_id: current.id, change: 'deleted' });
  return { scheduleId: current.id };
}
