/** Device groups: listing (flat or tree, kit group rules) and create / update / delete. */
import { z } from 'zod';
import { AppError, buildGroupViews, type GroupView, type Principal } from '@pylon/kit';
import { MAX_GROUP_DEPTH } from '../domain/device.js';
import { parseInput } from '../domain/validation.js';
import type { DeviceGroup, DeviceRepository } from '../device.repository.js';

/** Device groups with direct device counts and nesting levels, flat or as a tree (kit group rules). */
export async function listDeviceGroups(repo: DeviceRepository, principal: Principal, tree: boolean): Promise<GroupView[]> {
  const tenant = principal.accountId;
  const [groups, devices] = await Promise.all([repo.listGroups(tenant), repo.findDevices(tenant, { groupId: { $ne: null } }, {})]);
  return buildGroupViews(groups, devices.map((d) => d.groupId), { tree });
}

const groupSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    parentId: z.string().trim().min(1).max(200).nullable().optional(),
  })
  .strict();

/** Level of a would-be child of `parentId` (0 = top level); refuses unknown parents, cycles and depth. */
async function childLevel(repo: DeviceRepository, tenant: string, parentId: string | null, movingId?: string): Promise<number> {
  if (parentId === null) return 0;
  const groups = new Map((await repo.listGroups(tenant)).map((g) => [g.id, g]));
  if (!groups.has(parentId)) throw new AppError('BAD_USER_INPUT', `parent group '${parentId.slice(0, 100)}' was not found`, { field: 'parentId' });
  let level = 1;
  for (let at: string | null = parentId; at !== null; at = groups.get(at)?.parentId ?? null) {
    if (at === movingId) throw new AppError('BAD_USER_INPUT', 'a group cannot be moved under itself or one of its sub-groups', { field: 'parentId' });
    if (level > MAX_GROUP_DEPTH) break;
    level++;
  }
  if (level > MAX_GROUP_DEPTH) throw new AppError('BAD_USER_INPUT', `groups nest at most ${MAX_GROUP_DEPTH} levels deep`, { field: 'parentId' });
  return level - 1;
}

export async function createDeviceGroup(repo: DeviceRepository, principal: Principal, input: unknown): Promise<GroupView> {
  const g = parseInput(groupSchema, input);
  const tenant = principal.accountId;
  const parentId = g.parentId ?? null;
  const level = await childLevel(repo, tenant, parentId);
  const stored = await repo.groups.insert(tenant, { name: g.name, parentId });
  return { id: stored.id, name: stored.name, parentId, count: 0, level, children: [] };
}

/** Renames and/or moves a group; the name is copied onto its devices (they filter and sort by it). */
export async function updateDeviceGroup(repo: DeviceRepository, principal: Principal, id: string, input: unknown): Promise<GroupView> {
  const tenant = principal.accountId;
  const group = await repo.getGroup(tenant, id);
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId === undefined ? group.parentId : g.parentId;
  await childLevel(repo, tenant, parentId, group.id);
  await repo.groups.update(tenant, group.id, { $set: { name: g.name, parentId } });
  if (g.name !== group.name) {
    const members = await repo.findDevices(tenant, { groupId: group.id }, {});
    await Promise.all(members.map((d) => repo.devices.update(tenant, d.id, { $set: { groupName: g.name } })));
  }
  return viewOf(repo, principal, group.id);
}

/**
 * Deletes a group; never its devices. Its devices and sub-groups move up to its parent group
 * (or become ungrouped / top-level when it had none).
 */
export async function deleteDeviceGroup(repo: DeviceRepository, principal: Principal, id: string): Promise<{ groupId: string; movedDevices: number; movedGroups: number }> {
  const tenant = principal.accountId;
  const group = await repo.getGroup(tenant, id);
  const parent = group.parentId ? await repo.groups.findById(tenant, group.parentId) : null;
  const [members, children] = await Promise.all([repo.findDevices(tenant, { groupId: group.id }, {}), repo.groups.find(tenant, { parentId: group.id }, {})]);
  await Promise.all(members.map((d) => repo.devices.update(tenant, d.id, { $set: { groupId: parent?.id ?? null, groupName: parent?.name ?? null } })));
  await Promise.all(children.map((c) => repo.groups.update(tenant, c.id, { $set: { parentId: parent?.id ?? null } })));
  await repo.groups.delete(tenant, group.id);
  return { groupId: group.id, movedDevices: members.length, movedGroups: children.length };
}

async function viewOf(repo: DeviceRepository, principal: Principal, id: string): Promise<GroupView> {
  const view = (await listDeviceGroups(repo, principal, false)).find((v) => v.id === id);
  if (!view) throw new AppError('NOT_FOUND', `device group '${id}' was not found`);
  return view;
}

export type { DeviceGroup };
