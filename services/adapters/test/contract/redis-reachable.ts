/** Whether the Redis the contract suites use answers: null when it does, else why not. */
import { createRedisCache } from '../../src/redis/cache.redis.js';

export async function redisProblem(url: string, keyPrefix = ''): Promise<string | null> {
  const probe = createRedisCache({ url, keyPrefix, commandTimeoutMs: 1_500 });
  try {
    await probe.ping();
    return null;
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : String(e);
  } finally {
    await probe.close();
  }
}
