/** Device groups: listing (flat or tree, kit group rules) and create / update / delete. */
import { z } from 'zod';
import { AppError, buildGroupViews, type GroupView, type Principal } from '@pylon/kit';
import { MAX_GROUP_DEPTH } from '../domain/device.js';
import { parseInput } from '../domain/validation.js';
import type { DeviceGroup, DeviceRepository } from '../device.repository.js';

/** Device groups with direct device counts and nesting levels, flat or as a tree (kit group rules). */
export async function listDeviceGroups(repo: DeviceRepository, principal: Principal, tree: boolean): Promise<GroupView[]> {
  const tenant = principal.accountId;
  const [groups, memberships] = await Promise.all([repo.listGroups(tenant), repo.groupIdsOfGroupedDevices(tenant)]);
  return buildGroupViews(groups, memberships, { tree });
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
  const stored = await repo.addGroup(tenant, { name: g.name, parentId });
  return { id: stored.id, name: stored.name, parentId, count: 0, level, children: [] };
}

/** Renames and/or moves a group; the name is copied onto its devices (they filter and sort by it). */
export async function updateDeviceGroup(repo: DeviceRepository, principal: Principal, id: string, input: unknown): Promise<GroupView> {
  const tenant = principal.accountId;
  const group = await repo.getGroup(tenant, id);
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId === undefined ? group.parentId : g.parentId;
  await childLevel(repo, tenant, parentId, group.id);
  await repo.changeGroup(tenant, group, { name: g.name, parentId });
  return viewOf(repo, principal, group.id);
}

/**
 * Deletes a group; never its devices. Its devices and sub-groups move up to its parent group
 * (or become ungrouped / top-level when it had none).
 */
export async function deleteDeviceGroup(
  repo: DeviceRepository,
  principal: Principal,
  id: string,
): Promise<{ groupId: string; movedDevices: number; movedGroups: number }> {
  const tenant = principal.accountId;
  const group = await repo.getGroup(tenant, id);
  const parent = group.parentId ? await repo.findGroup(tenant, group.parentId) : null;
  return { groupId: group.id, ...(await repo.dissolveGroup(tenant, group, parent)) };
}

async function viewOf(repo: DeviceRepository, principal: Principal, id: string): Promise<GroupView> {
  const view = (await listDeviceGroups(repo, principal, false)).find((v) => v.id === id);
  if (!view) throw new AppError('NOT_FOUND', `device group '${id}' was not found`);
  return view;
}

export type { DeviceGroup };
