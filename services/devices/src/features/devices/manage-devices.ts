/** Registering, updating and deleting devices (GraphQL mutations; REST and legacy translate onto them). */
import { randomBytes } from 'node:crypto';
import { AppError, deviceRef, type Principal } from '@pylon/kit';
import { parseDeviceChanges, parseDeviceWritable, type DeviceWritable } from '../../domain/device-input.js';
import type { Device, DeviceChanges } from '../../shared/device.repository.js';
import type { DevicesRuntime } from '../../runtime.js';
import { releaseLatchesOf } from '../alerts/evaluate-alerts.js';
import { estimateKeyEntropy, MIN_CHOSEN_KEY_BITS } from '../../domain/key-entropy.js';
import { CHOSEN_REGISTRATION_KEY } from '../player/player-auth.js';
import { deleteSnap } from '../player/snaps.js';

/** What registering and changing a device needs. */
export type ManageDevicesDeps = Pick<DevicesRuntime, 'repo' | 'organizations' | 'devicesChanged' | 'pushEvents'>;
/** Deleting one also closes its alerts and removes its screenshot. */
export type DeleteDeviceDeps = Pick<DevicesRuntime, 'repo' | 'alerts' | 'blobs' | 'logger' | 'now' | 'devicesChanged' | 'pushEvents'>;

/** The group fields a device stores: its id and (denormalised) name, checked to exist in the account. */
export async function groupFields(
  rt: ManageDevicesDeps,
  tenant: string,
  groupId: string | null,
): Promise<{ groupId: string | null; groupName: string | null }> {
  return rt.repo.groupTree.groupFor(tenant, groupId);
}

/** Refuses an orgId that is not one of the caller's account's organizations (another account's included). */
async function checkOrgId(rt: ManageDevicesDeps, principal: Principal, orgId: string | null | undefined): Promise<void> {
  if (orgId === null || orgId === undefined) return;
  if (!(await rt.organizations.belongsTo(principal, orgId))) {
    throw new AppError('BAD_USER_INPUT', `orgId '${orgId.slice(0, 100)}' is not an organization of this account`, { field: 'orgId' });
  }
}

export const newRegistrationKey = () => randomBytes(16).toString('hex');

/** Registers a device; the registration key is generated (128 random bits) unless the player's own key is given. */
export async function createDevice(rt: ManageDevicesDeps, principal: Principal, input: Record<string, unknown>): Promise<Device> {
  const { registrationKey: givenKey, ...rest } = input ?? {};
  if (givenKey !== undefined && givenKey !== null && (typeof givenKey !== 'string' || !CHOSEN_REGISTRATION_KEY.test(givenKey))) {
    throw new AppError('BAD_USER_INPUT', 'registrationKey must be 32 to 128 letters, digits, - or _ (a guessable key would let anyone speak for the screen)', {
      field: 'registrationKey',
    });
  }
  if (typeof givenKey === 'string' && estimateKeyEntropy(givenKey) < MIN_CHOSEN_KEY_BITS) {
    throw new AppError(
      'BAD_USER_INPUT',
      'registrationKey is too easy to guess (repeated characters, runs or a small alphabet); omit it to get a generated key, or send 32+ random characters',
      { field: 'registrationKey' },
    );
  }
  const w = parseDeviceWritable(rest);
  const tenant = principal.accountId;
  await checkOrgId(rt, principal, w.orgId);
  const group = await groupFields(rt, tenant, w.groupId);
  try {
    const device = await rt.repo.addDevice(tenant, {
      ...w,
      ...group,
      pingData: null,
      registrationKey: typeof givenKey === 'string' ? givenKey : newRegistrationKey(),
    });
    rt.pushEvents?.emit(tenant, 'device.registered', { ...deviceRef(device), name: device.name });
    return device;
  } catch (e) {
    if ((e as { code?: string }).code === 'DUPLICATE_KEY')
      throw new AppError('DUPLICATE_KEY', 'this registration key is already registered', { field: 'registrationKey' });
    throw e;
  }
}

/** Applies the given writable fields (null clears one); the others keep their values. */
export async function updateDevice(rt: ManageDevicesDeps, principal: Principal, id: string, input: unknown, expectedVersion?: number): Promise<Device> {
  const changes = parseDeviceChanges(input);
  return applyDeviceChanges(rt, principal, id, changes, expectedVersion);
}

/** Every id the changes name (group, organization) is checked to belong to the caller's account. */
export async function applyDeviceChanges(
  rt: ManageDevicesDeps,
  principal: Principal,
  id: string,
  changes: Partial<DeviceWritable>,
  expectedVersion?: number,
): Promise<Device> {
  const tenant = principal.accountId;
  const device = await rt.repo.getDevice(tenant, id);
  // An unchanged orgId is not re-checked: a patch that leaves it alone still applies.
  if ('orgId' in changes && changes.orgId !== device.orgId) await checkOrgId(rt, principal, changes.orgId);
  const set: DeviceChanges = { ...changes };
  if ('groupId' in changes) Object.assign(set, await groupFields(rt, tenant, changes.groupId ?? null));
  if (Object.keys(set).length === 0) return device;
  const updated = await rt.repo.changeDevice(tenant, device.id, set, expectedVersion);
  if (!updated) throw new AppError('NOT_FOUND', `device '${id}' was not found`);
  rt.pushEvents?.emit(tenant, 'device.updated', { ...deviceRef(updated), name: updated.name, changed_fields: Object.keys(changes).sort() });
  // Its windows are read in its zone: what it plays (its manifest) may change.
  if ((updated.timezone ?? null) !== (device.timezone ?? null)) await rt.devicesChanged?.(tenant, [device.id]);
  return updated;
}

/** Deletes a device: its open alerts close, its screenshot goes, schedules drop it (announced); queued commands simply expire. */
export async function deleteDevice(rt: DeleteDeviceDeps, principal: Principal, id: string): Promise<{ deviceId: string }> {
  const tenant = principal.accountId;
  const device = await rt.repo.getDevice(tenant, id);
  if (!(await rt.repo.removeDevice(tenant, device.id))) throw new AppError('NOT_FOUND', `device '${id}' was not found`);
  rt.pushEvents?.emit(tenant, 'device.deleted', { ...deviceRef(device), name: device.name });
  await releaseLatchesOf(rt, tenant, { deviceId: device.id });
  await rt.devicesChanged?.(tenant, [device.id], { deleted: true });
  await deleteSnap(rt, device).catch((e: unknown) => rt.logger.warn({ err: e, deviceId: device.id }, 'screenshot of a deleted device not removed'));
  return { deviceId: device.id };
}
