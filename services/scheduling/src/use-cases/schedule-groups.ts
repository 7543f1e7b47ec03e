/**
 * Schedule groups: list (flat or as a tree), create, rename/move, delete (schedules and sub-groups
 * move up to the parent). At most MAX_GROUP_DEPTH levels; no cycles.
 */
import { z } from 'zod';
import { AppError, buildGroupViews, parseInput, type GroupView, type Principal } from '@pylon/kit';
import type { ScheduleRepository } from '../schedule.repository.js';

const MAX_GROUP_DEPTH = 10;
const groupSchema = z.object({ name: z.string().trim().min(1).max(200), parentId: z.string().trim().min(1).max(200).nullable().optional() }).strict();

/** Schedule groups with direct schedule counts and levels; flat, or as a tree of top-level groups. */
export async function listScheduleGroups(repo: ScheduleRepository, principal: Principal, tree: boolean): Promise<GroupView[]> {
  const tenant = principal.accountId;
  const [groups, members] = await Promise.all([repo.listGroups(tenant), repo.memberGroupIds(tenant)]);
  return buildGroupViews(groups, members, { tree });
}

/** Level of a would-be child of `parentId` (0 = top level); refuses unknown parents, cycles and depth. */
async function childLevel(repo: ScheduleRepository, tenant: string, parentId: string | null, movingId?: string): Promise<number> {
  if (parentId === null) return 0;
  const groups = new Map((await repo.listGroups(tenant)).map((g) => [g.id, g]));
  if (!groups.has(parentId)) throw new AppError('BAD_USER_INPUT', `parent group '${parentId.slice(0, 100)}' was not found`, { field: 'parentId' });
  let level = 1;
  for (let at: string | null = parentId; at !== null && level <= MAX_GROUP_DEPTH + 1; at = groups.get(at)?.parentId ?? null) {
    if (at === movingId) throw new AppError('BAD_USER_INPUT', 'a group cannot be moved under itself or one of its sub-groups', { field: 'parentId' });
    level++;
  }
  if (level - 1 > MAX_GROUP_DEPTH) throw new AppError('BAD_USER_INPUT', `groups nest at most ${MAX_GROUP_DEPTH} levels deep`, { field: 'parentId' });
  return level - 1;
}

async function viewOf(repo: ScheduleRepository, principal: Principal, id: string): Promise<GroupView> {
  const view = (await listScheduleGroups(repo, principal, false)).find((v) => v.id === id);
  if (!view) throw new AppError('NOT_FOUND', `schedule group '${id}' was not found`);
  return view;
}

export async function createScheduleGroup(repo: ScheduleRepository, principal: Principal, input: unknown): Promise<GroupView> {
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId ?? null;
  const level = await childLevel(repo, principal.accountId, parentId);
  const stored = await repo.addGroup(principal.accountId, { name: g.name, parentId });
  return { id: stored.id, name: stored.name, parentId, count: 0, level, children: [] };
}

export async function updateScheduleGroup(repo: ScheduleRepository, principal: Principal, id: string, input: unknown): Promise<GroupView> {
  const tenant = principal.accountId;
  const group = await repo.getGroup(tenant, id);
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId === undefined ? group.parentId : g.parentId;
  await childLevel(repo, tenant, parentId, group.id);
  await repo.changeGroup(tenant, group, g.name, parentId);
  return viewOf(repo, principal, group.id);
}

export async function deleteScheduleGroup(
  repo: ScheduleRepository,
  principal: Principal,
  id: string,
): Promise<{ groupId: string; movedItems: number; movedGroups: number }> {
  const group = await repo.getGroup(principal.accountId, id);
  const moved = await repo.removeGroupMovingUp(principal.accountId, group);
  return { groupId: group.id, ...moved };
}
