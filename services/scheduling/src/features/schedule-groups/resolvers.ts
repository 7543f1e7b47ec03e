/** GraphQL of schedule groups: kit's group tree over the schedules store. */
import { createGroup, deleteGroup, listGroupViews, mutationPayload, updateGroup } from '@pylon/kit';
import type { SchedulingRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';

export function scheduleGroupResolvers({ repo }: SchedulingRuntime): Resolvers {
  return {
    Query: {
      scheduleGroups: (_, args, ctx) => listGroupViews(repo.groupTree, ctx.principal, args),
    },
    Mutation: {
      createScheduleGroup: (_, a, ctx) => mutationPayload(async () => ({ group: await createGroup(repo.groupTree, ctx.principal, a.input) })),
      updateScheduleGroup: (_, a, ctx) => mutationPayload(async () => ({ group: await updateGroup(repo.groupTree, ctx.principal, a.id, a.input) })),
      deleteScheduleGroup: (_, a, ctx) => mutationPayload(() => deleteGroup(repo.groupTree, ctx.principal, a.id)),
    },
  };
}
