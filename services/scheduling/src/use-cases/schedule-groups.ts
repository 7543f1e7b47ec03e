import { buildGroupViews, type GroupView, type Principal } from '@pylon/kit';
import type { ScheduleRepository } from '../schedule.repository.js';

/** Schedule groups with direct schedule counts and levels; flat, or as a tree of top-level groups. */
export async function listScheduleGroups(repo: ScheduleRepository, principal: Principal, tree: boolean): Promise<GroupView[]> {
  const tenant = principal.accountId;
  const [groups, members] = await Promise.all([repo.listGroups(tenant), repo.memberGroupIds(tenant)]);
  return buildGroupViews(groups, members, { tree });
}
