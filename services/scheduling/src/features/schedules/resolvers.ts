/** GraphQL of schedules: lists, counts and writes; expected failures become { success: false, ... }. */
import { isoSeconds, JsonScalar, mutationPayload } from '@pylon/kit';
import { SCHEDULE_PRIORITIES } from '../../domain/schedule.js';
import type { SchedulingRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { countSchedules, listSchedules } from './list-schedules.js';
import { createSchedule, deleteSchedule, patchSchedule, updateSchedule } from './manage-schedules.js';

export function scheduleResolvers(rt: SchedulingRuntime): Resolvers {
  const { repo } = rt;
  return {
    JSON: JsonScalar,
    SchedulePriorityType: SCHEDULE_PRIORITIES,
    Query: {
      schedule: (_, args, ctx) => listSchedules(repo, ctx.principal, args),
      scheduleCount: (_, args, ctx) => countSchedules(repo, ctx.principal, args),
    },
    Mutation: {
      createSchedule: (_, a, ctx) => mutationPayload(async () => ({ schedule: await createSchedule(rt, ctx.principal, a.input) })),
      updateSchedule: (_, a, ctx) => mutationPayload(async () => ({ schedule: await updateSchedule(rt, ctx.principal, a.id, a.input) })),
      patchSchedule: (_, a, ctx) => mutationPayload(async () => ({ schedule: await patchSchedule(rt, ctx.principal, a.id, a.operations) })),
      deleteSchedule: (_, a, ctx) => mutationPayload(() => deleteSchedule(rt, ctx.principal, a.id)),
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
