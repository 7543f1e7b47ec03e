/** Whether the Redis the contract suites use answers, and their tests where it does (skipped, or failing under CI, where not). */
import { createRedisCache } from '../../src/redis/cache.redis.js';
import { skipNote } from '../../../kit/test/contract/wait.helpers.js';

/** Whether the Redis at `url` answers: null when it does, else why not. */
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

/**
 * The `tests` of a file's Redis suite (`name`) where the Redis at `url` answers (`problem` null, from
 * redisProblem); where it does not, a failing test under CI (CI starts redis-server), elsewhere a
 * note and a skipped test.
 */
export function redisSuite(name: string, url: string, problem: string | null, tests: () => void): void {
  if (problem === null) {
    tests();
  } else if (process.env.CI) {
    test('redis is reachable under CI', () => {
      throw new Error(`${name}: cannot connect to ${url} (${problem}); CI must start redis-server`);
    });
  } else {
    skipNote(`${name}: skipped, cannot connect to ${url} (${problem}); set REDIS_URL or start redis-server`);
    test.skip(`${name}: needs a reachable Redis`, () => undefined);
  }
}
