import { buildGroupViews, type GroupView, type Principal } from '@pylon/kit';
import type { DeviceRepository } from '../device.repository.js';

/** Device groups with direct device counts and nesting levels, flat or as a tree (kit group rules). */
export async function listDeviceGroups(repo: DeviceRepository, principal: Principal, tree: boolean): Promise<GroupView[]> {
  const tenant = principal.accountId;
  const [groups, devices] = await Promise.all([repo.listGroups(tenant), repo.findDevices(tenant, { groupId: { $ne: null } }, {})]);
  return buildGroupViews(groups, devices.map((d) => d.groupId), { tree });
}
