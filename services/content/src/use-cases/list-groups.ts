import { buildGroupViews, type GroupView, type Principal } from '@pylon/kit';
import type { GroupedItems } from '../content.repository.js';
import type { Grouped } from '../domain/group.js';

/** Groups of one content area with direct member counts and levels; flat, or as a tree of top-level groups. */
export async function listGroups<T extends Grouped>(area: GroupedItems<T>, principal: Principal, tree: boolean): Promise<GroupView[]> {
  const tenant = principal.accountId;
  const [groups, members] = await Promise.all([area.listGroups(tenant), area.memberGroupIds(tenant)]);
  return buildGroupViews(groups, members, { tree });
}
