import { createMemoryCache, createMemoryLeases, createMemoryPubSub, createMemoryPubSubHub } from '../../src/memory/cache.memory.js';
import { cacheContract, leasesContract, pubSubContract } from '@pylon/kit/contract/cache.contract';

cacheContract('memory', () => createMemoryCache());
leasesContract('memory', () => createMemoryLeases());

pubSubContract('memory', () => {
  const hub = createMemoryPubSubHub();
  return () => createMemoryPubSub(hub);
});

describe('memory cache specifics', () => {
  test('the bound evicts the least recently used entry', async () => {
    const cache = createMemoryCache({ maxEntries: 3 });
    await cache.set('a', 1, 60);
    await cache.set('b', 2, 60);
    await cache.set('c', 3, 60);
    expect(await cache.get('a')).toBe(1); // a is now the most recently used
    await cache.set('d', 4, 60);
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('a')).toBe(1);
    expect(await cache.get('c')).toBe(3);
    expect(await cache.get('d')).toBe(4);
  });

  test('the byte bound evicts the least recently used entries too, whatever their count (issue 34)', async () => {
    // Each value ~10 KB of JSON (~20 KB counted): 1 MiB holds about 50 of them.
    const cache = createMemoryCache({ maxEntries: 10_000, maxBytes: 2 ** 20 });
    const big = 'x'.repeat(10_000);
    for (let i = 0; i < 1_000; i++) await cache.set(`k${i}`, { big, i }, 60);
    let kept = 0;
    for (let i = 0; i < 1_000; i++) if ((await cache.get(`k${i}`)) !== undefined) kept++;
    expect(kept).toBeGreaterThan(40);
    expect(kept).toBeLessThanOrEqual(52);
    expect(await cache.get('k999')).toEqual({ big, i: 999 });
    expect(await cache.get('k0')).toBeUndefined();
  });

  test('expired entries are never returned (fake clock)', async () => {
    let now = 1_000_000;
    const cache = createMemoryCache({ now: () => now });
    await cache.set('k', 'v', 2);
    await cache.incr('n', 2);
    now += 1_999;
    expect(await cache.get('k')).toBe('v');
    expect(await cache.incr('n', 2)).toBe(2);
    now += 1;
    expect(await cache.get('k')).toBeUndefined();
    expect(await cache.incr('n', 2)).toBe(1);
  });

  test('incr on a value that is not an integer is refused', async () => {
    const cache = createMemoryCache();
    await cache.set('k', { a: 1 }, 60);
    await expect(cache.incr('k', 60)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  test('instances without a shared hub are isolated', async () => {
    const a = createMemoryPubSub();
    const b = createMemoryPubSub();
    const got: unknown[] = [];
    await b.subscribe('ch', (m) => got.push(m));
    await a.publish('ch', 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });

  test('closing a replica removes its subscriptions from the hub', async () => {
    const hub = createMemoryPubSubHub();
    const a = createMemoryPubSub(hub);
    const b = createMemoryPubSub(hub);
    const got: unknown[] = [];
    await a.subscribe('ch', (m) => got.push(m));
    await a.close();
    await b.publish('ch', 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([]);
    expect(hub.channels.size).toBe(0);
    await expect(a.publish('ch', 1)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await b.close();
  });
});
