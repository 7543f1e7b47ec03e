/**
 * Contracts every Cache, PubSub and Leases adapter passes. Keys, channels and lease names are unique per test.
 */
import type { Cache, Leases, PubSub } from '../ports/cache.js';
import { sleep, uniqueName, waitFor } from './wait.js';
import { afterEach, beforeEach, describe, expect, test } from './harness.js';

export function cacheContract(name: string, make: () => Cache | Promise<Cache>): void {
  describe(`Cache contract: ${name}`, () => {
    let cache: Cache;
    beforeEach(async () => {
      cache = await make();
    });
    afterEach(async () => {
      await cache.close();
    });

    test('ping resolves', async () => {
      await expect(cache.ping()).resolves.toBeUndefined();
    });

    test('a missing key reads as undefined', async () => {
      await expect(cache.get(uniqueName('missing'))).resolves.toBeUndefined();
    });

    test('values round-trip as JSON, and reads are copies', async () => {
      const key = uniqueName('obj');
      const value = { name: 'Lobby screen ✓', n: 3.5, ok: true, none: null, list: [1, 'two', { three: 3 }], nested: { deep: { x: -1 } } };
      await cache.set(key, value, 60);
      const got = await cache.get<typeof value>(key);
      expect(got).toEqual(value);
      got!.nested.deep.x = 99;
      expect(await cache.get(key)).toEqual(value);

      const scalars: [string, unknown][] = [
        ['str', 'hello'],
        ['num', 0],
        ['bool', false],
        ['nul', null],
        ['arr', []],
      ];
      for (const [suffix, v] of scalars) {
        const k = `${key}:${suffix}`;
        await cache.set(k, v, 60);
        expect(await cache.get(k)).toEqual(v);
      }
    });

    test('set overwrites', async () => {
      const key = uniqueName('over');
      await cache.set(key, { v: 1 }, 60);
      await cache.set(key, { v: 2 }, 60);
      expect(await cache.get(key)).toEqual({ v: 2 });
    });

    test('del removes; deleting a missing key is fine', async () => {
      const key = uniqueName('del');
      await cache.set(key, 'x', 60);
      await cache.del(key);
      expect(await cache.get(key)).toBeUndefined();
      await expect(cache.del(key)).resolves.toBeUndefined();
    });

    test('incr counts from 1 and is atomic under concurrency', async () => {
      const key = uniqueName('ctr');
      expect(await cache.incr(key, 60)).toBe(1);
      expect(await cache.incr(key, 60)).toBe(2);
      const results = await Promise.all(Array.from({ length: 40 }, () => cache.incr(key, 60)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 3));
      expect(await cache.get(key)).toBe(42);
    });

    test('entries expire after their ttl; incr keeps the ttl its first call set', async () => {
      const plain = uniqueName('ttl');
      const counter = uniqueName('ttl-ctr');
      const kept = uniqueName('ttl-kept');
      await cache.set(plain, { a: 1 }, 1);
      await cache.set(kept, 'stays', 60);
      expect(await cache.incr(counter, 1)).toBe(1);
      expect(await cache.get(plain)).toEqual({ a: 1 });
      await sleep(500);
      // A later increment with a longer ttl does not push the expiry out.
      expect(await cache.incr(counter, 60)).toBe(2);
      await sleep(650);
      expect(await cache.get(plain)).toBeUndefined();
      expect(await cache.get(counter)).toBeUndefined();
      expect(await cache.get(kept)).toBe('stays');
      expect(await cache.incr(counter, 60)).toBe(1);
    });

    test('a ttl that is not positive is refused', async () => {
      await expect(cache.set(uniqueName('bad'), 1, 0)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(cache.incr(uniqueName('bad'), -1)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    });

    test('a value that is not JSON-serialisable is refused', async () => {
      await expect(cache.set(uniqueName('bad'), { n: 1n }, 10)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    });
  });
}

/**
 * `makeReplicas` sets up one shared backend and returns a factory of PubSub instances on it,
 * each standing for one replica.
 */
export function pubSubContract(name: string, makeReplicas: () => () => PubSub | Promise<PubSub>): void {
  describe(`PubSub contract: ${name}`, () => {
    let replica: () => Promise<PubSub>;
    const open: PubSub[] = [];

    beforeEach(() => {
      const make = makeReplicas();
      replica = async () => {
        const p = await make();
        open.push(p);
        return p;
      };
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((p) => p.close()));
    });

    test('a published message reaches a subscriber', async () => {
      const ps = await replica();
      const channel = uniqueName('ch');
      const got: unknown[] = [];
      await ps.subscribe(channel, (m) => got.push(m));
      await ps.publish(channel, { kind: 'screen.updated', id: 's1', tags: ['a'] });
      await waitFor(() => got.length === 1, 2_000, 'message');
      expect(got).toEqual([{ kind: 'screen.updated', id: 's1', tags: ['a'] }]);
    });

    test('messages keep their order; other channels do not leak in', async () => {
      const ps = await replica();
      const channel = uniqueName('ch');
      const got: unknown[] = [];
      await ps.subscribe(channel, (m) => got.push(m));
      await ps.publish(uniqueName('other'), 'nope');
      for (let i = 0; i < 20; i++) await ps.publish(channel, i);
      await waitFor(() => got.length === 20, 2_000, '20 messages');
      expect(got).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    test('two subscribers both receive', async () => {
      const ps = await replica();
      const channel = uniqueName('ch');
      const a: unknown[] = [];
      const b: unknown[] = [];
      await ps.subscribe(channel, (m) => a.push(m));
      await ps.subscribe(channel, (m) => b.push(m));
      await ps.publish(channel, 'hello');
      await waitFor(() => a.length === 1 && b.length === 1, 2_000, 'both subscribers');
      expect(a).toEqual(['hello']);
      expect(b).toEqual(['hello']);
    });

    test('unsubscribe stops delivery to that handler only', async () => {
      const ps = await replica();
      const channel = uniqueName('ch');
      const a: unknown[] = [];
      const b: unknown[] = [];
      const offA = await ps.subscribe(channel, (m) => a.push(m));
      await ps.subscribe(channel, (m) => b.push(m));
      await ps.publish(channel, 1);
      await waitFor(() => a.length === 1 && b.length === 1, 2_000, 'first message');
      await offA();
      await ps.publish(channel, 2);
      await waitFor(() => b.length === 2, 2_000, 'second message');
      await sleep(100);
      expect(a).toEqual([1]);
      expect(b).toEqual([1, 2]);
    });

    test('after the last unsubscribe nothing is delivered', async () => {
      const ps = await replica();
      const channel = uniqueName('ch');
      const got: unknown[] = [];
      const off = await ps.subscribe(channel, (m) => got.push(m));
      await off();
      await off();
      await ps.publish(channel, 'late');
      await sleep(150);
      expect(got).toEqual([]);
    });

    test('two replicas see each other’s messages', async () => {
      const a = await replica();
      const b = await replica();
      const channel = uniqueName('ch');
      const atA: unknown[] = [];
      const atB: unknown[] = [];
      await a.subscribe(channel, (m) => atA.push(m));
      await b.subscribe(channel, (m) => atB.push(m));
      await a.publish(channel, { from: 'a' });
      await b.publish(channel, { from: 'b' });
      await waitFor(() => atA.length === 2 && atB.length === 2, 2_000, 'cross-replica messages');
      expect(atA).toEqual([{ from: 'a' }, { from: 'b' }]);
      expect(atB).toEqual([{ from: 'a' }, { from: 'b' }]);
    });

    test('a throwing handler does not stop the others', async () => {
      const ps = await replica();
      const channel = uniqueName('ch');
      const got: unknown[] = [];
      await ps.subscribe(channel, () => {
        throw new Error('bad handler');
      });
      await ps.subscribe(channel, (m) => got.push(m));
      await ps.publish(channel, 'x');
      await ps.publish(channel, 'y');
      await waitFor(() => got.length === 2, 2_000, 'messages');
      expect(got).toEqual(['x', 'y']);
    });

    test('publishing to a channel nobody listens to is fine', async () => {
      const ps = await replica();
      await expect(ps.publish(uniqueName('nobody'), { a: 1 })).resolves.toBeUndefined();
    });
  });
}

export function leasesContract(name: string, make: () => Leases | Promise<Leases>): void {
  describe(`Leases contract: ${name}`, () => {
    let leases: Leases;
    beforeEach(async () => {
      leases = await make();
    });
    afterEach(async () => {
      await leases.close();
    });

    test('holds up to the limit, then names the full slot; a release frees a place', async () => {
      const n = uniqueName('lease');
      for (const h of ['h1', 'h2']) expect(await leases.acquire([{ name: n, limit: 2 }], h, 60)).toBeNull();
      expect(await leases.acquire([{ name: n, limit: 2 }], 'h3', 60)).toBe(n);
      expect(await leases.count(n)).toBe(2);
      await leases.release([n], 'h1');
      expect(await leases.count(n)).toBe(1);
      expect(await leases.acquire([{ name: n, limit: 2 }], 'h3', 60)).toBeNull();
    });

    test('all or none: a full slot takes nothing from the others; a holder counts once', async () => {
      const [a, b] = [uniqueName('lease-a'), uniqueName('lease-b')];
      expect(await leases.acquire([{ name: b, limit: 1 }], 'first', 60)).toBeNull();
      const slots = [
        { name: a, limit: 5 },
        { name: b, limit: 1 },
      ];
      expect(await leases.acquire(slots, 'second', 60)).toBe(b);
      expect(await leases.count(a)).toBe(0);
      expect(await leases.acquire([{ name: b, limit: 1 }], 'first', 60)).toBeNull();
      expect(await leases.count(b)).toBe(1);
    });

    test('a hold lapses after its ttl unless renewed', async () => {
      const [kept, lapsed] = [uniqueName('lease-kept'), uniqueName('lease-lapsed')];
      await leases.acquire([{ name: kept, limit: 1 }], 'h', 1);
      await leases.acquire([{ name: lapsed, limit: 1 }], 'h', 1);
      await sleep(600);
      await leases.renew([kept], 'h', 1);
      await sleep(600);
      expect(await leases.count(kept)).toBe(1);
      expect(await leases.count(lapsed)).toBe(0);
      expect(await leases.acquire([{ name: lapsed, limit: 1 }], 'other', 60)).toBeNull();
    });
  });
}
