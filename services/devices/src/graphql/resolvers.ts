import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import type { SubgraphContext } from '@pylon/kit';
import type { DevicesRuntime } from '../runtime.js';
import { alertQueryResolvers, alertTypeResolvers } from './alert.resolvers.js';
import { deviceQueryResolvers, deviceTypeResolvers } from './device.resolvers.js';
import { JsonScalar } from './json.scalar.js';
import { mutationResolvers } from './mutation.resolvers.js';

export function devicesResolvers(rt: DevicesRuntime): GraphQLResolverMap<SubgraphContext> {
  return {
    Query: { ...deviceQueryResolvers(rt), ...alertQueryResolvers(rt) },
    Mutation: mutationResolvers(rt),
    ...deviceTypeResolvers(rt),
    ...alertTypeResolvers(rt),
    JSON: JsonScalar,
  } as unknown as GraphQLResolverMap<SubgraphContext>;
}
