import { requirePolicy, type AnalyticsStore, type SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { readAuditEvents, type AuditArgs } from '../use-cases/read-audit.js';
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
      // The policy is identity's (roles -> policies), carried in the principal token; the data is
      // here, in the analytics store, so this subgraph serves and guards it.
      auditEvent: (_: unknown, args: AuditArgs, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'AuditEventsOwnerOnly');
        return readAuditEvents(store, ctx.principal, args);
      },
    },
  };
}
