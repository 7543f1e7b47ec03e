/** GraphQL of what players report: a custom device event recorded on a device's behalf. */
import { mutationPayload } from '@pylon/kit';
import type { DevicesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { trackEvent } from './track-event.js';

export function playerResolvers(rt: DevicesRuntime): Resolvers {
  return {
    Mutation: {
      trackDeviceEvent: (_, a, ctx) => mutationPayload(async () => trackEvent(rt, await rt.repo.getDevice(ctx.principal.accountId, a.deviceId), a.input)),
    },
  };
}
