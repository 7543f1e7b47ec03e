/**
 * Runs the cache and pub/sub contracts against a real Redis: REDIS_URL when set, otherwise
 * redis://127.0.0.1:6379. When it cannot connect: fails under CI (CI starts redis-server),
 * skips elsewhere. Keys and channels carry a prefix unique to this run.
 */
import { createRedisCache, createRedisLeases, createRedisPubSub } from '../../src/redis/cache.redis.js';
import { cacheContract, leasesContract, pubSubContract } from '@pylon/kit/contract/cache.contract';
import { redisProblem, redisSuite } from './redis-reachable.js';
import { uniqueName } from '../../../kit/test/contract/wait.helpers.js';

const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `${uniqueName('pylon-test')}:`;

const problem = await redisProblem(url, prefix);

redisSuite('cache.redis', url, problem, () => {
  cacheContract('redis', () => createRedisCache({ url, keyPrefix: prefix }));
  pubSubContract('redis', () => () => createRedisPubSub({ url, channelPrefix: prefix }));
  leasesContract('redis', () => createRedisLeases({ url, keyPrefix: prefix }));

  test('redis leases: two clients (two replicas) share the holds on a name', async () => {
    const [a, b] = [createRedisLeases({ url, keyPrefix: prefix }), createRedisLeases({ url, keyPrefix: prefix })];
    try {
      expect(await a.acquire([{ name: 'shared', limit: 1 }], 'on-a', 60)).toBeNull();
      expect(await b.acquire([{ name: 'shared', limit: 1 }], 'on-b', 60)).toBe('shared');
      await a.release(['shared'], 'on-a');
      expect(await b.acquire([{ name: 'shared', limit: 1 }], 'on-b', 60)).toBeNull();
    } finally {
      await b.release(['shared'], 'on-b');
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('redis: keys carry the prefix, so two prefixes do not see each other', async () => {
    const a = createRedisCache({ url, keyPrefix: `${prefix}a:` });
    const b = createRedisCache({ url, keyPrefix: `${prefix}b:` });
    try {
      await a.set('k', 'from a', 60);
      expect(await b.get('k')).toBeUndefined();
      expect(await a.get('k')).toBe('from a');
    } finally {
      await Promise.all([a.del('k'), a.close(), b.close()]);
    }
  });
});

describe('redis adapter against an unreachable server', () => {
  const dead = 'redis://127.0.0.1:1';

  test('get and set reject quickly as UNAVAILABLE instead of hanging', async () => {
    const cache = createRedisCache({ url: dead });
    try {
      for (const op of [() => cache.get('k'), () => cache.set('k', 1, 10), () => cache.incr('n', 10)]) {
        const started = Date.now();
        await expect(op()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
        expect(Date.now() - started).toBeLessThan(2_500);
      }
    } finally {
      await cache.close();
    }
  });

  test('pub/sub publish and subscribe reject quickly as UNAVAILABLE', async () => {
    const ps = createRedisPubSub({ url: dead });
    try {
      const started = Date.now();
      await expect(ps.publish('ch', 1)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(ps.subscribe('ch', () => undefined)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await ps.close();
    }
  });

  test('after close, the cache and the leases refuse commands as UNAVAILABLE, naming which is closed', async () => {
    const [cache, leases] = [createRedisCache({ url: dead }), createRedisLeases({ url: dead })];
    await Promise.all([cache.close(), leases.close(), cache.close()]);
    await expect(cache.get('k')).rejects.toMatchObject({ code: 'UNAVAILABLE', message: 'cache is closed' });
    await expect(leases.count('n')).rejects.toMatchObject({ code: 'UNAVAILABLE', message: 'lease store is closed' });
  });

  test('close does not hang on a connection that never came up', async () => {
    const cache = createRedisCache({ url: dead });
    const started = Date.now();
    await cache.close();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
