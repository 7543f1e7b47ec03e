import { guardQuery, type AnalyticsStore } from '@pylon/kit';
import { readAuditEvents } from '../use-cases/read-audit.js';
import { readPingLogs, readPlayLogs } from '../use-cases/read-logs.js';
import type { Resolvers } from './resolvers.generated.js';

export function analyticsResolvers(store: AnalyticsStore): Resolvers {
  return {
    Query: {
      playLogs: (_, args, ctx) => {
        guardQuery(ctx.principal, 'playLogs');
        return readPlayLogs(store, ctx.principal, args);
      },
      pingLogs: (_, args, ctx) => {
        guardQuery(ctx.principal, 'pingLogs');
        return readPingLogs(store, ctx.principal, args);
      },
      auditEvent: (_, args, ctx) => {
        guardQuery(ctx.principal, 'auditEvent');
        return readAuditEvents(store, ctx.principal, args);
      },
    },
  };
}
