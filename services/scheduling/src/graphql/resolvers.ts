import { guardQuery, isoSeconds } from '@pylon/kit';
import { SCHEDULE_PRIORITIES } from '../domain/schedule.js';
import type { ScheduleRepository } from '../schedule.repository.js';
import { listScheduleGroups } from '../use-cases/schedule-groups.js';
import { listSchedules } from '../use-cases/list-schedules.js';
import type { Resolvers } from './resolvers.generated.js';

export function schedulingResolvers(repo: ScheduleRepository): Resolvers {
  return {
    SchedulePriorityType: SCHEDULE_PRIORITIES,
    Query: {
      schedule: (_, args, ctx) => {
        guardQuery(ctx.principal, 'schedule');
        return listSchedules(repo, ctx.principal, args);
      },
      scheduleGroups: (_, args, ctx) => {
        guardQuery(ctx.principal, 'scheduleGroups');
        return listScheduleGroups(repo, ctx.principal, args.tree === true);
      },
    },
    Schedule: {
      startDate: (s) => isoSeconds(s.startDate),
      endDate: (s) => isoSeconds(s.endDate),
      devices: (s) => (s.deviceIds ?? []).map((id) => ({ id })),
      tags: (s) => s.tags ?? [],
      createdOn: (s) => isoSeconds(s.createdAt),
      updatedOn: (s) => isoSeconds(s.updatedAt),
    },
  };
}
