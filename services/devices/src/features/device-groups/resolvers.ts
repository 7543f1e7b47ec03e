/** GraphQL of device groups: kit's group tree over the devices store. */
import { createGroup, deleteGroup, listGroupViews, mutationPayload, updateGroup } from '@pylon/kit';
import type { DevicesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';

export function deviceGroupResolvers({ repo }: DevicesRuntime): Resolvers {
  return {
    Query: {
      deviceGroups: async (_, args, ctx) => listGroupViews(repo.groupTree, ctx.principal, args),
    },
    Mutation: {
      createDeviceGroup: (_, a, ctx) => mutationPayload(async () => ({ group: await createGroup(repo.groupTree, ctx.principal, a.input) })),
      updateDeviceGroup: (_, a, ctx) => mutationPayload(async () => ({ group: await updateGroup(repo.groupTree, ctx.principal, a.id, a.input) })),
      deleteDeviceGroup: (_, a, ctx) => {
        return mutationPayload(async () => {
          const { movedItems, ...deleted } = await deleteGroup(repo.groupTree, ctx.principal, a.id);
          return { ...deleted, movedDevices: movedItems };
        });
      },
    },
  };
}
