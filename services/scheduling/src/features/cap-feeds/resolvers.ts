/** GraphQL of CAP alert feeds: thin, arguments in, use cases out (policies come from @policy). */
import { AppError, mutationPayload } from '@pylon/kit';
import type { SchedulingRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { getOverride } from '../overrides/manage-overrides.js';
import { overrideOut } from '../overrides/resolvers.js';
import { alertOut, capFeedOut, createCapFeed, deleteCapFeed, listCapFeeds, updateCapFeed } from './manage-cap-feeds.js';
import { pollCapFeed } from './poll-cap-feed.js';

const notFoundAsNull = (e: unknown) => {
  if ((e as { code?: string }).code === 'NOT_FOUND') return null;
  throw e;
};

export function capFeedResolvers(rt: SchedulingRuntime): Resolvers {
  return {
    Query: {
      capFeeds: async (_, __, ctx) => (await listCapFeeds(rt, ctx.principal)).map(capFeedOut),
      capFeed: async (_, a, ctx) => {
        const f = await rt.capFeeds.get(ctx.principal.accountId, a.id).catch(notFoundAsNull);
        return f ? capFeedOut(f) : null;
      },
    },
    Mutation: {
      createCapFeed: (_, a, ctx) => mutationPayload(async () => ({ capFeed: capFeedOut(await createCapFeed(rt, ctx.principal, a.input)) })),
      updateCapFeed: (_, a, ctx) => mutationPayload(async () => ({ capFeed: capFeedOut(await updateCapFeed(rt, ctx.principal, a.id, a.input)) })),
      deleteCapFeed: (_, a, ctx) =>
        mutationPayload(async () => {
          const f = capFeedOut(await rt.capFeeds.get(ctx.principal.accountId, a.id));
          await deleteCapFeed(rt, ctx.principal, a.id);
          return { capFeed: f };
        }),
      pollCapFeed: (_, a, ctx) =>
        mutationPayload(async () => {
          const feed = await rt.capFeeds.get(ctx.principal.accountId, a.id);
          const report = await pollCapFeed(rt, ctx.principal.accountId, feed);
          return {
            alertsRead: report.alertsRead,
            handled: report.handled.map(alertOut),
            feedError: report.error,
            capFeed: capFeedOut(await rt.capFeeds.get(ctx.principal.accountId, a.id)),
          };
        }),
    },
    CapFeed: {
      alerts: async (feed, a, ctx) => {
        const limit = a.limit ?? 20;
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new AppError('BAD_USER_INPUT', 'limit must be 1 to 100', { field: 'limit' });
        return (await rt.capFeeds.recentAlerts(ctx.principal.accountId, feed.id, limit)).map(alertOut);
      },
    },
    CapAlert: {
      override: async (alert, _, ctx) => {
        if (!alert.overrideId) return null;
        const v = await getOverride(rt, ctx.principal, alert.overrideId).catch(notFoundAsNull);
        return v ? overrideOut(v) : null;
      },
    },
  };
}
