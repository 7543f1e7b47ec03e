/** Embedded rate limiter: rate-limiter-flexible's in-process fixed windows. */
import rlf from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimiter, RateLimitSpec } from '@pylon/kit/ports/rate-limit';

type Limiter = InstanceType<typeof rlf.RateLimiterMemory> | InstanceType<typeof rlf.RateLimiterRedis>;
type Res = InstanceType<typeof rlf.RateLimiterRes>;

export const isLimiterRes = (v: unknown): v is Res => v instanceof rlf.RateLimiterRes;
const retryAfter = (res: Res) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/** The port over any rate-limiter-flexible limiter: a refusal is a decision, not an error. */
export function wrapLimiter(limiter: Limiter, points: number, close: () => Promise<void> = async () => undefined): RateLimiter {
  const decide = async (run: () => Promise<Res>): Promise<RateLimitDecision> => {
    try {
      const res = await run();
      return { allowed: true, remaining: res.remainingPoints };
    } catch (e) {
      if (isLimiterRes(e)) return { allowed: false, retryAfterSeconds: retryAfter(e) };
      throw e;
    }
  };
  return {
    consume: (key, cost = 1) => decide(() => limiter.consume(key, cost)),
    async peek(key) {
      const res = await limiter.get(key);
      if (!res || res.consumedPoints <= points) return { allowed: true, remaining: res ? res.remainingPoints : points };
      return { allowed: false, retryAfterSeconds: retryAfter(res) };
    },
    async reset(key) {
      await limiter.delete(key);
    },
    close,
  };
}

export function memoryLimiterOptions(spec: RateLimitSpec) {
  return {
    keyPrefix: `rl:${spec.name}`,
    points: spec.points,
    duration: spec.durationSeconds,
    ...(spec.blockSeconds ? { blockDuration: spec.blockSeconds } : {}),
  };
}

export function createMemoryRateLimiter(spec: RateLimitSpec): RateLimiter {
  return wrapLimiter(new rlf.RateLimiterMemory(memoryLimiterOptions(spec)), spec.points);
}
