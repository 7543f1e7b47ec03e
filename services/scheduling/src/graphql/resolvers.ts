import { createGroup, deleteGroup, isoSeconds, listGroupViews, mergeResolvers, mutationPayload, updateGroup, JsonScalar } from '@pylon/kit';
import { SCHEDULE_PRIORITIES } from '../domain/schedule.js';
import type { SchedulingRuntime } from '../runtime.js';
import { countSchedules, listSchedules } from '../use-cases/list-schedules.js';
import { createSchedule, deleteSchedule, patchSchedule, updateSchedule } from '../use-cases/manage-schedules.js';
import { deviceTimeline, nowPlaying, reasonOf } from '../use-cases/now-playing.js';
import type { Resolvers } from './resolvers.generated.js';

const iso = (ms: number | null) => (ms === null ? null : isoSeconds(ms));

function queryResolvers(rt: SchedulingRuntime): Resolvers {
  const { repo } = rt;
  return {
    JSON: JsonScalar,
    SchedulePriorityType: SCHEDULE_PRIORITIES,
    Query: {
      schedule: (_, args, ctx) => {
        return listSchedules(repo, ctx.principal, args);
      },
      scheduleCount: (_, args, ctx) => {
        return countSchedules(repo, ctx.principal, args);
      },
      scheduleGroups: (_, args, ctx) => {
        return listGroupViews(repo.groupTree, ctx.principal, args);
      },
      nowPlaying: async (_, args, ctx) => {
        const r = await nowPlaying(rt, ctx.principal, args.deviceId, args.at);
        const winner = r.winner?.schedule ?? null;
        return {
          device: { id: r.deviceId },
          at: iso(r.at)!,
          timezone: r.zone,
          localTime: r.localTime,
          schedule: winner,
          content: winner
            ? {
                type: winner.type,
                playlist: winner.playlistId ? { id: winner.playlistId } : null,
                template: winner.templateId ? { id: winner.templateId } : null,
              }
            : null,
          considered: r.considered.map((c) => ({
            schedule: c.plan.schedule,
            matched: c.verdict === 'PLAYING',
            verdict: c.verdict,
            reason: reasonOf(c.verdict, c.plan.schedule),
            windowStart: iso(c.window?.from ?? null),
            windowEnd: iso(c.window?.to ?? null),
          })),
          nextChange: iso(r.nextChange),
        };
      },
      deviceTimeline: async (_, args, ctx) => {
        const r = await deviceTimeline(rt, ctx.principal, args.deviceId, args.from, args.to);
        return {
          device: { id: r.deviceId },
          timezone: r.zone,
          segments: r.segments.map((s) => ({ from: iso(s.from)!, to: iso(s.to)!, schedule: s.winner?.schedule ?? null })),
        };
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

/** Each mutation guards through kit's operation-rules; expected failures become { success: false, ... }. */
function mutationResolvers(rt: SchedulingRuntime): Resolvers {
  const { repo } = rt;
  return {
    Mutation: {
      createSchedule: (_, a, ctx) => {
        return mutationPayload(async () => ({ schedule: await createSchedule(rt, ctx.principal, a.input) }));
      },
      updateSchedule: (_, a, ctx) => {
        return mutationPayload(async () => ({ schedule: await updateSchedule(rt, ctx.principal, a.id, a.input) }));
      },
      patchSchedule: (_, a, ctx) => {
        return mutationPayload(async () => ({ schedule: await patchSchedule(rt, ctx.principal, a.id, a.operations) }));
      },
      deleteSchedule: (_, a, ctx) => {
        return mutationPayload(() => deleteSchedule(rt, ctx.principal, a.id));
      },
      createScheduleGroup: (_, a, ctx) => {
        return mutationPayload(async () => ({ group: await createGroup(repo.groupTree, ctx.principal, a.input) }));
      },
      updateScheduleGroup: (_, a, ctx) => {
        return mutationPayload(async () => ({ group: await updateGroup(repo.groupTree, ctx.principal, a.id, a.input) }));
      },
      deleteScheduleGroup: (_, a, ctx) => {
        return mutationPayload(() => deleteGroup(repo.groupTree, ctx.principal, a.id));
      },
    },
  };
}

export function schedulingResolvers(rt: SchedulingRuntime): Resolvers {
  return mergeResolvers(queryResolvers(rt), mutationResolvers(rt)) as Resolvers;
}
