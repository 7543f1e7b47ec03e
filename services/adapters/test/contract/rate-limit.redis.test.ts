/**
 * The rate-limit contract against a real Redis (REDIS_URL, else redis://127.0.0.1:6379; fails under
 * CI when unreachable, skips elsewhere), and the insurance limiter on an address where nothing listens.
 */
import { createRedisRateLimiter } from '../../src/redis/rate-limit.redis.js';
import { rateLimitContract } from '@pylon/kit/contract/rate-limit.contract';
import { redisProblem, redisSuite } from './redis-reachable.js';
import { uniqueName } from '../../../kit/test/contract/wait.helpers.js';

const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const problem = await redisProblem(url);

redisSuite('rate-limit.redis', url, problem, () => {
  rateLimitContract('redis', (spec) => createRedisRateLimiter({ ...spec, url, keyPrefix: `${uniqueName('pylon-test')}:` }));
});

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
