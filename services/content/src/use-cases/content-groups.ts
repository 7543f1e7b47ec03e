/**
 * Groups of media, playlists and templates: create, rename/move, delete. One implementation for
 * the three areas, with the device groups' rules: kit's group tree for listing, at most
 * MAX_GROUP_DEPTH levels, no cycles, deleting a group moves its members and sub-groups up.
 */
import { z } from 'zod';
import { AppError, parseInput, type GroupView, type Principal } from '@pylon/kit';
import type { GroupedItems } from '../content.repository.js';
import { MAX_GROUP_DEPTH, type Grouped } from '../domain/group.js';
import { idField, nameField } from '../domain/fields.js';
import { listGroups } from './list-groups.js';

const groupSchema = z.object({ name: nameField, parentId: idField.nullable().optional() }).strict();

/** Level of a would-be child of `parentId` (0 = top level); refuses unknown parents, cycles and depth. */
async function childLevel<T extends Grouped>(area: GroupedItems<T>, tenant: string, parentId: string | null, movingId?: string): Promise<number> {
  if (parentId === null) return 0;
  const groups = new Map((await area.listGroups(tenant)).map((g) => [g.id, g]));
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

async function viewOf<T extends Grouped>(area: GroupedItems<T>, principal: Principal, id: string): Promise<GroupView> {
  const view = (await listGroups(area, principal, false)).find((v) => v.id === id);
  if (!view) throw new AppError('NOT_FOUND', `${area.noun} group '${id}' was not found`);
  return view;
}

export async function createGroup<T extends Grouped>(area: GroupedItems<T>, principal: Principal, input: unknown): Promise<GroupView> {
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId ?? null;
  const level = await childLevel(area, principal.accountId, parentId);
  const stored = await area.addGroup(principal.accountId, { name: g.name, parentId });
  return { id: stored.id, name: stored.name, parentId, count: 0, level, children: [] };
}

export async function updateGroup<T extends Grouped>(area: GroupedItems<T>, principal: Principal, id: string, input: unknown): Promise<GroupView> {
  const tenant = principal.accountId;
  const group = await area.getGroup(tenant, id);
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId === undefined ? group.parentId : g.parentId;
  await childLevel(area, tenant, parentId, group.id);
  await area.changeGroup(tenant, group, g.name, parentId);
  return viewOf(area, principal, group.id);
}

export async function deleteGroup<T extends Grouped>(
  area: GroupedItems<T>,
  principal: Principal,
  id: string,
): Promise<{ groupId: string; movedItems: number; movedGroups: number }> {
  const group = await area.getGroup(principal.accountId, id);
  const moved = await area.removeGroupMovingUp(principal.accountId, group);
  return { groupId: group.id, ...moved };
}
