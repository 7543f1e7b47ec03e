import { isoSeconds, requirePolicy, type SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { SCHEDULE_PRIORITIES } from '../domain/schedule.js';
import type { Schedule, ScheduleRepository } from '../schedule.repository.js';
import { listScheduleGroups } from '../use-cases/schedule-groups.js';
import { listSchedules, type ScheduleQuery } from '../use-cases/list-schedules.js';

export function schedulingResolvers(repo: ScheduleRepository): GraphQLResolverMap<SubgraphContext> {
  return {
    // Enum names <-> stored ranks, both ways: output serialises ranks, inputs (where) arrive as ranks.
    SchedulePriorityType: SCHEDULE_PRIORITIES,
    Query: {
      schedule: (_: unknown, args: ScheduleQuery, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Schedules_View');
        return listSchedules(repo, ctx.principal, args);
      },
      scheduleGroups: (_: unknown, args: { tree?: boolean | null }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Schedules_View');
        return listScheduleGroups(repo, ctx.principal, args.tree === true);
      },
    },
    Schedule: {
      startDate: (s: Schedule) => isoSeconds(s.startDate),
      endDate: (s: Schedule) => isoSeconds(s.endDate),
      // References only: the gateway fetches device fields from the devices subgraph.
      devices: (s: Schedule) => (s.deviceIds ?? []).map((id) => ({ id })),
      tags: (s: Schedule) => s.tags ?? [],
      createdOn: (s: Schedule) => isoSeconds(s.createdAt),
      updatedOn: (s: Schedule) => isoSeconds(s.updatedAt),
    },
  };
}
