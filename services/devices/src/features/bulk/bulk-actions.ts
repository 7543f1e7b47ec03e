/**
 * One chunk of a bulk job: the action applied to up to BULK_CHUNK devices with as few store round
 * trips as the action allows (one read of the chunk, one updateMany; commands: one queue write per
 * slice, one delivery-hint write), answering one outcome per device id of the chunk.
 */
import { AppError, deviceRef, isAppError, type Principal } from '@pylon/kit';
import type { DevicesRuntime } from '../../runtime.js';
import type { Device, DeviceChanges } from '../../shared/device.repository.js';
import { announce, records } from '../commands/send-commands.js';
import { editedTags, type BulkInput } from './bulk.js';

export type Outcome = { ok: true } | { ok: false; error: string; code: string };

export type BulkDeps = Pick<
  DevicesRuntime,
  'repo' | 'commands' | 'alerts' | 'wakeups' | 'settings' | 'now' | 'logger' | 'pushEvents' | 'devicesChanged' | 'schedules'
>;

/** What the whole job computes once (validated commands, the group's fields) before its chunks. */
export interface Prepared {
  commands?: { command: string; arg: string | null }[];
  group?: { groupId: string | null; groupName: string | null };
}

const OK: Outcome = { ok: true };
const gone = (id: string): Outcome => ({ ok: false, error: `device '${id.slice(0, 100)}' was not found`, code: 'NOT_FOUND' });
type Failure = Extract<Outcome, { ok: false }>;
const failed = (e: unknown): Failure =>
  isAppError(e) && e.code !== 'INTERNAL'
    ? { ok: false, error: e.message, code: e.code }
    : { ok: false, error: 'the change could not be stored; run the job again', code: 'UNAVAILABLE' };

export async function applyChunk(
  rt: BulkDeps,
  principal: Principal,
  input: BulkInput,
  prepared: Prepared,
  ids: readonly string[],
): Promise<Map<string, Outcome>> {
  const tenant = principal.accountId;
  const out = new Map<string, Outcome>();
  const found = new Map((await rt.repo.findByIds(tenant, ids)).map((d) => [d.id, d]));
  const devices: Device[] = [];
  for (const id of ids) {
    const d = found.get(id);
    if (d) devices.push(d);
    else out.set(id, gone(id));
  }
  switch (input.action) {
    case 'add_tags':
    case 'remove_tags': {
      const action = input.action;
      const items: { id: string; changes: DeviceChanges }[] = [];
      for (const d of devices) {
        try {
          const tags = editedTags(d.tags ?? [], action, input.tags);
          if (tags) items.push({ id: d.id, changes: { tags } });
          else out.set(d.id, OK);
        } catch (e) {
          out.set(d.id, failed(e));
        }
      }
      await writeChanges(rt, tenant, items, ['tags'], out);
      break;
    }
    case 'move_to_group': {
      const group = prepared.group!;
      const items = devices.filter((d) => (d.groupId ?? null) !== group.groupId).map((d) => ({ id: d.id, changes: { ...group } }));
      for (const d of devices) if (!out.has(d.id)) out.set(d.id, OK);
      await writeChanges(rt, tenant, items, ['groupId'], out);
      break;
    }
    case 'send_commands': {
      const now = rt.now();
      try {
        await rt.commands.queue(
          tenant,
          devices.flatMap((d) => records(rt, principal, d, prepared.commands!, now)),
        );
        await announce(rt, tenant, devices, now);
        for (const d of devices) out.set(d.id, OK);
      } catch (e) {
        rt.logger.error({ err: e }, 'bulk job: commands not queued');
        for (const d of devices) out.set(d.id, failed(e));
      }
      break;
    }
    case 'assign_schedule':
    case 'unassign_schedule': {
      if (!rt.schedules) throw new AppError('UNAVAILABLE', 'schedule assignment is not available in this deployment (no scheduling link)');
      let refused: Map<string, { error: string; code: string }>;
      try {
        refused = await rt.schedules.assign(
          principal,
          input.scheduleId!,
          devices.map((d) => d.id),
          input.action === 'assign_schedule' ? 'add' : 'remove',
        );
      } catch (e) {
        // The schedule itself refused (gone, a campaign, a version conflict): every device of the chunk fails with it.
        const f = failed(e);
        refused = new Map(devices.map((d) => [d.id, { error: f.error, code: f.code }]));
      }
      for (const d of devices) {
        const r = refused.get(d.id);
        out.set(d.id, r ? { ok: false, error: r.error, code: r.code } : OK);
      }
      break;
    }
  }
  return out;
}

/** One updateMany for the chunk's changed devices; then their push events and the manifest announcement (tags and groups select schedules). */
async function writeChanges(
  rt: BulkDeps,
  tenant: string,
  items: { id: string; changes: DeviceChanges }[],
  fields: string[],
  out: Map<string, Outcome>,
): Promise<void> {
  if (items.length === 0) return;
  let written: Array<Device | null>;
  try {
    written = await rt.repo.changeDevices(tenant, items);
  } catch (e) {
    rt.logger.error({ err: e }, 'bulk job: device changes not stored');
    for (const i of items) out.set(i.id, failed(e));
    return;
  }
  const changed: string[] = [];
  written.forEach((d, k) => {
    const id = items[k]!.id;
    if (!d) return void out.set(id, gone(id));
    out.set(id, OK);
    changed.push(id);
    rt.pushEvents?.emit(tenant, 'device.updated', { ...deviceRef(d), name: d.name, changed_fields: fields });
  });
  if (changed.length) await rt.devicesChanged?.(tenant, changed);
}
