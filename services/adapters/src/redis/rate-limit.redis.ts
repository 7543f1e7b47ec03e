/**
 * Scaled rate limiter: counters in Redis (shared by every replica) through rate-limiter-flexible,
 * with an in-memory insurance limiter. The Redis connection has no offline queue and the limiter
 * refuses to wait for a connection that is not ready, so while Redis is down every decision is
 * taken at once by the insurance limiter (per replica) instead of hanging or failing.
 */
import { Redis } from 'ioredis';
import rlf from 'rate-limiter-flexible';
import type { RateLimiter, RateLimitSpec } from '@pylon/kit/ports/rate-limit';
import { memoryLimiterOptions, wrapLimiter } from '../memory/rate-limit.memory.js';

export interface RedisRateLimiterOptions extends RateLimitSpec {
  url: string;
  /** Longest one Redis round trip may take before the insurance limiter decides. Default 500 ms. */
  commandTimeoutMs?: number;
  keyPrefix?: string;
}

export function createRedisRateLimiter(opts: RedisRateLimiterOptions): RateLimiter {
  const client = new Redis(opts.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 500,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    connectionName: `pylon-ratelimit-${opts.name}`,
    disconnectTimeout: 200,
  });
  // Connection errors are expected while Redis is down; the insurance limiter covers them.
  client.on('error', () => undefined);
  const limiter = new rlf.RateLimiterRedis({
    ...memoryLimiterOptions(opts),
    keyPrefix: `${opts.keyPrefix ?? 'pylon:'}rl:${opts.name}`,
    storeClient: client,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new rlf.RateLimiterMemory(memoryLimiterOptions(opts)),
  });
  return wrapLimiter(limiter, opts.points, async () => {
    if (client.status === 'ready') await Promise.race([client.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
    client.disconnect();
  });
}
