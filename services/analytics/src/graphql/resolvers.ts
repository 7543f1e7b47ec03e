import { requirePolicy, type AnalyticsStore, type SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { readPingLogs, readPlayLogs, type LogArgs } from '../use-cases/read-logs.js';

export function analyticsResolvers(store: AnalyticsStore): GraphQLResolverMap<SubgraphContext> {
  return {
    Query: {
      playLogs: (_: unknown, args: LogArgs, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Analytics_View');
        return readPlayLogs(store, ctx.principal, args);
      },
      pingLogs: (_: unknown, args: LogArgs, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Analytics_View');
        return readPingLogs(store, ctx.principal, args);
      },
    },
  };
}
