/** Registering, updating and deleting devices (GraphQL mutations; REST and legacy translate onto them). */
import { randomBytes } from 'node:crypto';
import { AppError, type Principal } from '@pylon/kit';
import { parseDeviceChanges, parseDeviceWritable, type DeviceWritable } from '../domain/device-input.js';
import type { Device } from '../device.repository.js';
import type { DevicesRuntime } from '../runtime.js';
import { releaseLatch } from './alerts/evaluate-alerts.js';
import { REGISTRATION_KEY } from './player-auth.js';
import { deleteSnap } from './snaps.js';

/** The group fields a device stores: its id and (denormalised) name, checked to exist in the account. */
export async function groupFields(rt: DevicesRuntime, tenant: string, groupId: string | null): Promise<{ groupId: string | null; groupName: string | null }> {
  if (groupId === null) return { groupId: null, groupName: null };
  const group = await rt.repo.groups.findById(tenant, groupId);
  if (!group) throw new AppError('BAD_USER_INPUT', `device group '${groupId.slice(0, 100)}' was not found`, { field: 'groupId' });
  return { groupId: group.id, groupName: group.name };
}

export const newRegistrationKey = () => randomBytes(16).toString('hex');

/** Registers a device; the registration key is generated unless the player's own key is given. */
export async function createDevice(rt: DevicesRuntime, principal: Principal, input: Record<string, unknown>): Promise<Device> {
  const { registrationKey: givenKey, ...rest } = input ?? {};
  if (givenKey !== undefined && givenKey !== null && (typeof givenKey !== 'string' || !REGISTRATION_KEY.test(givenKey))) {
    throw new AppError('BAD_USER_INPUT', 'registrationKey must be 8 to 128 letters, digits, - or _', { field: 'registrationKey' });
  }
  const w = parseDeviceWritable(rest);
  const tenant = principal.accountId;
  try {
    return await rt.repo.devices.insert(tenant, {
      ...w,
      ...(await groupFields(rt, tenant, w.groupId)),
      pingData: null,
      registrationKey: typeof givenKey === 'string' ? givenKey : newRegistrationKey(),
    });
  } catch (e) {
    if ((e as { code?: string }).code === 'DUPLICATE_KEY') throw new AppError('DUPLICATE_KEY', 'this registration key is already registered', { field: 'registrationKey' });
    throw e;
  }
}

/** Applies the given writable fields (null clears one); the others keep their values. */
export async function updateDevice(rt: DevicesRuntime, principal: Principal, id: string, input: unknown, expectedVersion?: number): Promise<Device> {
  const changes = parseDeviceChanges(input);
  return applyDeviceChanges(rt, principal.accountId, id, changes, expectedVersion);
}

export async function applyDeviceChanges(rt: DevicesRuntime, tenant: string, id: string, changes: Partial<DeviceWritable>, expectedVersion?: number): Promise<Device> {
  const device = await rt.repo.getDevice(tenant, id);
  const set: Record<string, unknown> = { ...changes };
  if ('groupId' in changes) Object.assign(set, await groupFields(rt, tenant, changes.groupId ?? null));
  if (Object.keys(set).length === 0) return device;
  const updated = await rt.repo.devices.update(tenant, device.id, { $set: set }, expectedVersion === undefined ? {} : { expectedVersion });
  if (!updated) throw new AppError('NOT_FOUND', `device '${id}' was not found`);
  return updated;
}

/** Deletes a device: its open alerts close, its screenshot goes; queued commands simply expire. */
export async function deleteDevice(rt: DevicesRuntime, principal: Principal, id: string): Promise<{ deviceId: string }> {
  const tenant = principal.accountId;
  const device = await rt.repo.getDevice(tenant, id);
  if (!(await rt.repo.devices.delete(tenant, device.id))) throw new AppError('NOT_FOUND', `device '${id}' was not found`);
  for (const alert of await rt.alerts.findLatchedBy(tenant, { deviceId: device.id })) await releaseLatch(rt, tenant, alert);
  await deleteSnap(rt, device).catch((e: unknown) => rt.logger.warn({ err: e, deviceId: device.id }, 'screenshot of a deleted device not removed'));
  return { deviceId: device.id };
}
