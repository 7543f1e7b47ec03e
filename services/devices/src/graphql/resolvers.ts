import { mergeResolvers, JsonScalar } from '@pylon/kit';
import type { DevicesRuntime } from '../runtime.js';
import { alertQueryResolvers, alertTypeResolvers } from './alert.resolvers.js';
import { deviceQueryResolvers, deviceTypeResolvers } from './device.resolvers.js';
import { mutationResolvers } from './mutation.resolvers.js';
import type { Resolvers } from './resolvers.generated.js';

export function devicesResolvers(rt: DevicesRuntime): Resolvers {
  return mergeResolvers<Resolvers>(
    { Query: deviceQueryResolvers(rt) },
    { Query: alertQueryResolvers(rt) },
    { Mutation: mutationResolvers(rt) },
    deviceTypeResolvers(rt),
    alertTypeResolvers(rt),
    { JSON: JsonScalar },
  );
}
