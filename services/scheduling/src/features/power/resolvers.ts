/** GraphQL of power schedules: thin, arguments in, use cases out (policies come from @policy). */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import { localHhmm } from '../../domain/power.js';
import type { SchedulingRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { instantArg } from '../now-playing/now-playing.js';
import { deletePowerSchedule, devicePower, getPowerSchedule, listPowerSchedules, setPowerSchedule, type DevicePower } from './manage-power.js';
import type { PowerSchedule } from './power-schedule.repository.js';

const out = (s: PowerSchedule) => ({ ...s, createdOn: isoSeconds(s.createdAt)!, updatedOn: isoSeconds(s.updatedAt)! });
const nullWhenNotFound = <T>(p: Promise<T>): Promise<T | null> =>
  p.catch((e: unknown) => {
    if ((e as { code?: string }).code === 'NOT_FOUND') return null;
    throw e;
  });

/** The state in words: what nowPlaying gives as its reason while the display is off. */
export function powerReason(p: Pick<DevicePower, 'on' | 'until' | 'zone' | 'schedule'>): string {
  if (!p.schedule) return 'no power schedule: display always on';
  const until = p.until === null ? '' : ` until ${localHhmm(p.zone, p.until)}`;
  return p.on ? `display on by power schedule${until}` : `display off by power schedule${until}`;
}

export function powerResolvers(rt: SchedulingRuntime): Resolvers {
  return {
    Query: {
      powerSchedules: async (_, _a, ctx) => (await listPowerSchedules(rt, ctx.principal)).map(out),
      powerSchedule: async (_, a, ctx) => {
        const s = await nullWhenNotFound(getPowerSchedule(rt, ctx.principal, a.id));
        return s ? out(s) : null;
      },
      devicePower: async (_, a, ctx) => {
        const at = instantArg(a.at, 'at', rt.now());
        const p = await nullWhenNotFound(devicePower(rt, ctx.principal, a.deviceId, at));
        return p
          ? {
              device: { id: p.deviceId },
              at: isoSeconds(at)!,
              timezone: p.zone,
              displayOn: p.on,
              until: p.until === null ? null : isoSeconds(p.until),
              schedule: p.schedule ? out(p.schedule) : null,
              reason: powerReason(p),
            }
          : null;
      },
    },
    Mutation: {
      setPowerSchedule: (_, a, ctx) => mutationPayload(async () => ({ powerSchedule: out(await setPowerSchedule(rt, ctx.principal, a.input)) })),
      deletePowerSchedule: (_, a, ctx) => mutationPayload(async () => ({ powerSchedule: out(await deletePowerSchedule(rt, ctx.principal, a.id)) })),
    },
  };
}
