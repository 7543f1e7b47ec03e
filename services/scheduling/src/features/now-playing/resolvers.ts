/** GraphQL of what a device plays: now (and why) and over a period. */
import { isoSeconds } from '@pylon/kit';
import type { SchedulingRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { overrideAt } from '../overrides/manage-overrides.js';
import { overrideOut } from '../overrides/resolvers.js';
import { devicePower } from '../power/manage-power.js';
import { powerReason } from '../power/resolvers.js';
import { deviceTimeline, nowPlaying, reasonOf } from './now-playing.js';
import { contentVerdicts, expiryReason, timelineVerdicts } from './content-verdicts.js';

const iso = (ms: number | null) => (ms === null ? null : isoSeconds(ms));

export function nowPlayingResolvers(rt: SchedulingRuntime): Resolvers {
  return {
    Query: {
      nowPlaying: async (_, args, ctx) => {
        const r = await nowPlaying(rt, ctx.principal, args.deviceId, args.at);
        const winner = r.winner?.schedule ?? null;
        const [override, verdicts, power] = await Promise.all([
          overrideAt(rt, ctx.principal, r.deviceId, r.at),
          contentVerdicts(rt, ctx.principal, winner, r.at),
          devicePower(rt, ctx.principal, r.deviceId, r.at),
        ]);
        return {
          skippedContent: verdicts.skipped,
          override: override ? overrideOut(override) : null,
          reason: override
            ? `emergency override '${override.override.name}' (started ${iso(Date.parse(override.override.startsAt))}) shows over every schedule`
            : !power.on
              ? powerReason(power)
              : winner
                ? expiryReason(`schedule '${winner.name}' wins`, verdicts)
                : 'nothing scheduled',
          device: { id: r.deviceId },
          at: iso(r.at)!,
          timezone: r.zone,
          localTime: r.localTime,
          schedule: winner,
          content: winner
            ? {
                type: winner.type,
                playlist: winner.playlistId ? { id: winner.playlistId } : null,
                template: winner.templateId ? { id: winner.templateId } : null,
              }
            : null,
          considered: r.considered.map((c) => ({
            schedule: c.plan.schedule,
            matched: c.verdict === 'PLAYING',
            verdict: c.verdict,
            reason: reasonOf(c.verdict, c.plan.schedule),
            windowStart: iso(c.window?.from ?? null),
            windowEnd: iso(c.window?.to ?? null),
          })),
          nextChange: iso(r.nextChange),
        };
      },
      deviceTimeline: async (_, args, ctx) => {
        const r = await deviceTimeline(rt, ctx.principal, args.deviceId, args.from, args.to);
        const pieces = await timelineVerdicts(rt, ctx.principal, r.segments);
        return {
          device: { id: r.deviceId },
          timezone: r.zone,
          segments: pieces.map((p) => ({ from: iso(p.from)!, to: iso(p.to)!, schedule: p.schedule, skippedContent: p.skipped })),
        };
      },
    },
  };
}
