/**
 * The rules of every group tree (devices, media, playlists, templates, schedules), once: listing
 * flat or as a tree with `where` / `order`, create, rename/move, delete. At most MAX_GROUP_DEPTH
 * levels; a group never moves under itself or one of its sub-groups; deleting a group never
 * deletes its members: they and its sub-groups move up to its parent.
 */
import { z } from 'zod';
import { AppError } from './errors.js';
import { whereToFilter, orderToSort, type FieldMap } from './graphql/filters.js';
import { buildGroupViews, type GroupView } from './groups.js';
import type { GroupTreeRepository } from './group-tree.repository.js';
import type { Principal } from './auth/principal.js';
import { parseInput } from './validation.js';

/** Deepest nesting of groups: top-level groups are level 0, the deepest allowed level is MAX_GROUP_DEPTH - 1. */
export const MAX_GROUP_DEPTH = 10;

/** How a `*Groups` query's where/order fields map onto stored groups (count and level are derived, not stored). */
export const GROUP_FIELDS: FieldMap = {
  id: { path: 'id', kind: 'string' },
  name: { path: 'name', kind: 'string' },
  parentId: { path: 'parentId', kind: 'string' },
};

/** A group tree repository seen through its methods (whatever its members are). */
export type GroupTree = Pick<GroupTreeRepository, keyof GroupTreeRepository>;

/** The arguments of every `*Groups` list query. */
export interface GroupListArgs {
  tree?: boolean | null;
  where?: unknown;
  order?: unknown;
}

const groupSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    parentId: z.string().trim().min(1).max(200).nullable().optional(),
  })
  .strict();

/**
 * Groups with direct member counts and nesting levels. Without where/order: every group, flat
 * (each parent before its children) or as a tree of top-level groups, children by name. With them:
 * the matching groups in the asked order; as a tree, a match whose parent does not match stands
 * at the top. `level` is always the group's level in the whole tree.
 */
export async function listGroupViews(repo: GroupTree, principal: Principal, args: GroupListArgs = {}): Promise<GroupView[]> {
  const tenant = principal.accountId;
  const tree = args.tree === true;
  const filtered = (args.where !== undefined && args.where !== null) || (args.order !== undefined && args.order !== null);
  const query = filtered ? { filter: whereToFilter(args.where, GROUP_FIELDS), sort: orderToSort(args.order, GROUP_FIELDS, { name: 1, id: 1 }) } : undefined;
  const [all, members, selected] = await Promise.all([
    repo.listGroups(tenant),
    repo.memberGroupIds(tenant),
    query ? repo.listGroups(tenant, query) : undefined,
  ]);
  if (!selected) return buildGroupViews(all, members, { tree });

  const levels = new Map(buildGroupViews(all, members).map((v) => [v.id, v.level]));
  const views = tree ? buildGroupViews(selected, members, { tree }) : orderedFlat(buildGroupViews(selected, members), selected);
  const relevel = (v: GroupView): void => {
    v.level = levels.get(v.id) ?? v.level;
    v.children.forEach(relevel);
  };
  views.forEach(relevel);
  return views;
}

/** The flat views in the stored (asked) order rather than depth-first. */
function orderedFlat(views: GroupView[], order: readonly { id: string }[]): GroupView[] {
  const byId = new Map(views.map((v) => [v.id, v]));
  return order.map((g) => byId.get(g.id)!);
}

/** Level of a would-be child of `parentId` (0 = top level); refuses unknown parents, cycles and depth. */
async function childLevel(repo: GroupTree, tenant: string, parentId: string | null, movingId?: string): Promise<number> {
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

export async function createGroup(repo: GroupTree, principal: Principal, input: unknown): Promise<GroupView> {
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId ?? null;
  const level = await childLevel(repo, principal.accountId, parentId);
  const stored = await repo.addGroup(principal.accountId, { name: g.name, parentId });
  return { id: stored.id, name: stored.name, parentId, count: 0, level, children: [] };
}

/** Renames and/or moves a group (the name is copied onto its members). */
export async function updateGroup(repo: GroupTree, principal: Principal, id: string, input: unknown): Promise<GroupView> {
  const tenant = principal.accountId;
  const group = await repo.getGroup(tenant, id);
  const g = parseInput(groupSchema, input);
  const parentId = g.parentId === undefined ? group.parentId : g.parentId;
  await childLevel(repo, tenant, parentId, group.id);
  await repo.changeGroup(tenant, group, { name: g.name, parentId });
  const view = (await listGroupViews(repo, principal)).find((v) => v.id === group.id);
  if (!view) throw new AppError('NOT_FOUND', `${repo.noun} group '${group.id}' was not found`);
  return view;
}

/** Deletes a group, never its members: they and its sub-groups move up to its parent (or top level). */
export async function deleteGroup(repo: GroupTree, principal: Principal, id: string): Promise<{ groupId: string; movedItems: number; movedGroups: number }> {
  const group = await repo.getGroup(principal.accountId, id);
  const moved = await repo.removeGroupMovingUp(principal.accountId, group);
  return { groupId: group.id, ...moved };
}
