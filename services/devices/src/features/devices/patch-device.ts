/** JSON Patch on a device's writable fields (REST PATCH /devices/{id}, GraphQL patchDevice). */
import { applyJsonPatch, type Principal } from '@pylon/kit';
import { parseDeviceWritable, READ_ONLY_DEVICE_FIELDS, WRITABLE_DEVICE_FIELDS, writableOf } from '../../domain/device-input.js';
import type { Device } from '../../shared/device.repository.js';
import { applyDeviceChanges, type ManageDevicesDeps } from './manage-devices.js';

const RULES = { writable: new Set<string>(WRITABLE_DEVICE_FIELDS), readOnly: READ_ONLY_DEVICE_FIELDS };

/**
 * Reads the device, applies the patch to its writable view, validates the result as a whole and
 * writes it with the version read: a concurrent change makes this fail with VERSION_CONFLICT
 * instead of being silently overwritten.
 */
export async function patchDevice(rt: ManageDevicesDeps, principal: Principal, id: string, operations: unknown): Promise<Device> {
  const device = await rt.repo.getDevice(principal.accountId, id);
  const patched = parseDeviceWritable(applyJsonPatch(writableOf(device), operations, RULES));
  return applyDeviceChanges(rt, principal, device.id, patched, device.version);
}
