/**
 * The rate-limit contract against a real Redis (REDIS_URL, else redis://127.0.0.1:6379; fails under
 * CI when unreachable, skips elsewhere), and the insurance limiter on an address where nothing listens.
 */
import { createRedisRateLimiter } from '../../src/redis/rate-limit.redis.js';
import { createRedisCache } from '../../src/redis/cache.redis.js';
import { rateLimitContract } from '@pylon/kit/contract/rate-limit.contract';
import { skipNote, uniqueName } from '../../../kit/test/contract/wait.helpers.js';

const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const probe = createRedisCache({ url, commandTimeoutMs: 1_000 });
const problem = await probe.ping().then(
  () => null,
  (e: unknown) => String((e as { cause?: unknown }).cause ?? e),
);
await probe.close();

if (problem === null) {
  rateLimitContract('redis', (spec) => createRedisRateLimiter({ ...spec, url, keyPrefix: `${uniqueName('pylon-test')}:` }));
} else if (process.env.CI) {
  test('redis is reachable under CI', () => {
    throw new Error(`rate-limit.redis: cannot connect to ${url} (${problem})`);
  });
} else {
  skipNote(`rate-limit.redis: skipped, cannot connect to ${url} (${problem})`);
  test.skip('rate-limit.redis: needs a reachable Redis', () => undefined);
}

test('Redis unreachable: the in-memory insurance limiter decides at once, and still limits', async () => {
  const l = createRedisRateLimiter({ name: 'down', points: 2, durationSeconds: 60, url: 'redis://127.0.0.1:1' });
  try {
    const started = Date.now();
    const decisions = [await l.consume('k'), await l.consume('k'), await l.consume('k')];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(Date.now() - started).toBeLessThan(1000);
  } finally {
    await l.close();
  }
});
