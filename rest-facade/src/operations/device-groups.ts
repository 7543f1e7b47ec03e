/** /devices/groups: list (flat or tree), create, update, delete onto the device group queries and mutations. */
import { CONTENT_GROUP_EXTRA, groupOps } from './groups.js';

// Every group answered (nested children too, and a new one) carries `children` and the reference's
// family / organization_count, which Pylon has no concept for (null, as for the content groups).
const groups = groupOps(
  {
    list: 'deviceGroups',
    create: 'createDeviceGroup',
    update: 'updateDeviceGroup',
    remove: 'deleteDeviceGroup',
  },
  CONTENT_GROUP_EXTRA,
  { path: '/devices/groups', tag: 'Devices', noun: 'device', plural: 'devices', policy: 'Devices', schema: 'Group', request: 'GroupRequest' },
);
export const listDeviceGroups = groups.list;
export const createDeviceGroup = groups.create;
export const updateDeviceGroup = groups.update;
export const deleteDeviceGroup = groups.remove;
