/** GraphQL of emergency overrides: thin, arguments in, use cases out (policies come from @policy). */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import type { SchedulingRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { cancelOverride, getOverride, listOverrides, startOverride, type OverrideView } from './manage-overrides.js';

/** An OverrideView as the Override type reads it. */
export function overrideOut(v: OverrideView) {
  const o = v.override;
  const c = o.content;
  const counts = { pending: 0, showing: 0, ended: 0, unreachable: 0 };
  for (const s of v.screens) counts[s.state.toLowerCase() as keyof typeof counts]++;
  return {
    id: o.id,
    name: o.name,
    state: v.state,
    content: {
      type: c.type,
      media: c.type === 'MEDIA' ? { id: c.mediaId } : null,
      playlist: c.type === 'PLAYLIST' ? { id: c.playlistId } : null,
      text: c.type === 'MESSAGE' ? c.text : null,
      textColor: c.type === 'MESSAGE' ? c.textColor : null,
      backgroundColor: c.type === 'MESSAGE' ? c.backgroundColor : null,
    },
    target: o.target,
    startsAt: isoSeconds(o.startsAt),
    endsAt: isoSeconds(o.endsAt),
    cancelledAt: isoSeconds(o.cancelledAt),
    startedBy: o.startedBy,
    createdOn: isoSeconds(o.createdAt),
    screens: v.screens.map((s) => ({ device: { id: s.deviceId }, state: s.state, shownAt: s.shownAt, stoppedAt: s.stoppedAt })),
    screenCounts: counts,
  };
}

export function overrideResolvers(rt: SchedulingRuntime): Resolvers {
  return {
    Query: {
      overrides: async (_, args, ctx) => (await listOverrides(rt, ctx.principal, args)).map(overrideOut),
      override: async (_, args, ctx) => {
        const v = await getOverride(rt, ctx.principal, args.id).catch((e: unknown) => {
          if ((e as { code?: string }).code === 'NOT_FOUND') return null;
          throw e;
        });
        return v ? overrideOut(v) : null;
      },
    },
    Mutation: {
      startOverride: (_, a, ctx) => mutationPayload(async () => ({ override: overrideOut(await startOverride(rt, ctx.principal, a.input)) })),
      cancelOverride: (_, a, ctx) => mutationPayload(async () => ({ override: overrideOut(await cancelOverride(rt, ctx.principal, a.id)) })),
    },
  };
}
