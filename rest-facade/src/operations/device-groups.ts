/** /devices/groups: list (flat or tree), create, update, delete onto the device group queries and mutations. */
import { groupOps } from './groups.js';

export const {
  list: listDeviceGroups,
  create: createDeviceGroup,
  update: updateDeviceGroup,
  remove: deleteDeviceGroup,
} = groupOps({ path: '/devices/groups', tag: 'Devices', noun: 'device', plural: 'devices', policy: 'Devices', schema: 'Group', request: 'GroupRequest' });
