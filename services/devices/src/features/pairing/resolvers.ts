/** GraphQL of pairing: the screen waiting with a code, and claiming it as a device. */
import { mutationPayload } from '@pylon/kit';
import type { DevicesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { claimDevice, pairingRequest } from './pairing.js';

export function pairingResolvers(rt: DevicesRuntime): Resolvers {
  return {
    Query: {
      pairingRequest: async (_, args, ctx) => pairingRequest(rt, ctx.principal, args.code),
    },
    Mutation: {
      claimDevice: (_, a, ctx) => mutationPayload(async () => ({ device: await claimDevice(rt, ctx.principal, a) })),
    },
  };
}
