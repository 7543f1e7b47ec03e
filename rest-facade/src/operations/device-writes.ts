/** POST /devices, PUT/PATCH/DELETE /devices/{id} onto createDevice / updateDevice / patchDevice / deleteDevice. */
import { createOp, deleteOp, patchOp, updateOp, type FieldMap } from './declare.js';
import { toRestDevice } from './devices.js';

/** REST body property -> GraphQL input field (nested device_type / location keep their one-word keys). */
const DEVICE_FIELDS: FieldMap = {
  name: 'name',
  tags: 'tags',
  group_id: 'groupId',
  org_id: 'orgId',
  device_type: 'deviceType',
  location: 'location',
  timezone: 'timezone',
  notes: 'notes',
};

const toRest = (d: Record<string, unknown>) => toRestDevice(d);

export const createDevice = createOp({ root: 'createDevice', record: 'device', body: { fields: { ...DEVICE_FIELDS, registration_key: 'registrationKey' } }, toRest });

export const updateDevice = updateOp({
  root: 'updateDevice',
  record: 'device',
  // PUT replaces the writable representation: what the body leaves out is reset.
  body: { fields: DEVICE_FIELDS, resetTo: { tags: [], groupId: null, orgId: null, deviceType: null, location: null, timezone: null, notes: null } },
  toRest,
});

export const patchDevice = patchOp({ root: 'patchDevice', record: 'device', toRest });

export const deleteDevice = deleteOp({ root: 'deleteDevice' });
