/**
 * Runs the stream contract against a real Redis (Redis Streams): REDIS_URL when set, otherwise
 * redis://127.0.0.1:6379; skipped when it cannot connect (fails under CI). Streams carry a prefix
 * unique to this run. Also: a member that dies holding a batch (its connection dropped without
 * acknowledging) has the batch claimed by another member of the group after claimIdleMs;
 * retention trims only what every group consumed.
 */
import { Redis } from 'ioredis';
import type { EventStream, StreamMessage } from '@pylon/kit';
import { createRedisStream } from '../../src/redis/stream.redis.js';
import { streamContract } from '@pylon/kit/contract/stream.contract';
import { redisProblem, redisSuite } from './redis-reachable.js';
import { uniqueName, waitFor } from '../../../kit/test/contract/wait.helpers.js';

const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `${uniqueName('pylon-test-stream')}:`;

const problem = await redisProblem(url);
const make = () => createRedisStream({ url, keyPrefix: prefix, claimIdleMs: 300, retryBaseMs: 20, retryMaxMs: 200, retentionIntervalMs: 0 });

/** `body` with a fresh topic (named after `name`) and group, and two members of the group (two replicas); both closed after. */
async function twoMembers(name: string, body: (topic: string, group: string, a: EventStream, b: EventStream) => Promise<void>): Promise<void> {
  const [topic, group, a, b] = [uniqueName(name), uniqueName('g'), make(), make()];
  try {
    await body(topic, group, a, b);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

afterAll(async () => {
  if (problem !== null) return;
  const r = new Redis(url);
  const keys = await r.keys(`${prefix}*`);
  if (keys.length) await r.del(...keys);
  r.disconnect();
});

redisSuite('stream.redis', url, problem, () => {
  streamContract('redis', make, { timeoutMs: 10_000 });

  test(
    'redis: a batch held by a member that died (no acknowledgement) is handled by another member after claimIdleMs',
    () =>
      twoMembers('died', async (topic, group, dying, living) => {
        // The first member reads the batch and dies before acknowledging it (a process killed
        // mid-batch): a consumer of the group that reads and then never renews nor acknowledges.
        await dying.publish(topic, [{ key: 'k', value: 'held' }]);
        const raw = new Redis(url);
        await raw.call('XGROUP', 'CREATE', `${prefix}${topic}`, group, '0', 'MKSTREAM');
        await raw.call('XREADGROUP', 'GROUP', group, 'killed-member', 'COUNT', 10, 'STREAMS', `${prefix}${topic}`, '>');
        raw.disconnect();
        const got: StreamMessage[] = [];
        await living.subscribe(topic, { group, maxWaitMs: 0 }, async (b) => {
          got.push(...b);
        });
        await waitFor(() => got.length >= 1, 10_000, 'the claimed batch');
        expect(got.map((m) => m.value)).toEqual(['held']);
      }),
    30_000,
  );

  test(
    'redis: a live member keeps its batch past claimIdleMs (it renews its claim); no other member handles it',
    () =>
      twoMembers('renew', async (topic, group, slow, other) => {
        const seen: string[] = [];
        let done = false;
        await slow.subscribe(topic, { group, maxWaitMs: 0 }, async (b) => {
          seen.push(`slow:${String(b[0]!.value)}`);
          await new Promise((r) => setTimeout(r, 1_500)); // 5 x claimIdleMs, the event loop free
          done = true;
        });
        await slow.publish(topic, [{ value: 'long' }]);
        await waitFor(() => seen.length === 1, 10_000, 'the slow member took the batch');
        await other.subscribe(topic, { group, maxWaitMs: 0 }, async (b) => {
          seen.push(`other:${String(b[0]!.value)}`);
        });
        await waitFor(() => done, 10_000, 'the slow handler');
        await new Promise((r) => setTimeout(r, 600));
        expect(seen).toEqual(['slow:long']);
      }),
    30_000,
  );

  test('redis: a member whose batch was claimed by another loses it: its heartbeat rejects (LeaseLostError), its acknowledgement is refused', async () => {
    // Another member's XAUTOCLAIM after claimIdleMs, done here by hand (both members of one process
    // cannot stall apart; the multi-process ingest test stalls a real one).
    const topic = uniqueName('stall');
    const group = uniqueName('g');
    const stream = make();
    const r = new Redis(url);
    const key = `${prefix}${topic}`;
    try {
      const events: string[] = [];
      await stream.subscribe(topic, { group, maxWaitMs: 0 }, async (b, hold) => {
        events.push('took it');
        if (events.length > 2) return; // later claimed back from the other member, which never renews: done
        const ids = ((await r.call('XPENDING', key, group, '-', '+', 10)) as [string, string, number, number][]).map(([id]) => id);
        await r.call('XCLAIM', key, group, 'another-member', 0, ...ids, 'JUSTID');
        try {
          await hold.heartbeat();
          events.push('wrote after losing it');
        } catch (e) {
          events.push((e as Error).name);
          throw e;
        }
        void b;
      });
      await stream.publish(topic, [{ value: 'once' }]);
      await waitFor(() => events.length >= 2, 10_000, 'the handler');
      // Not acknowledged by the member that lost it, not renewed back to it: still the other's.
      const pending = (await r.call('XPENDING', key, group, '-', '+', 10)) as [string, string, number, number][];
      expect(pending.map(([, consumer]) => consumer)).toEqual(['another-member']);
      expect(events).toEqual(['took it', 'LeaseLostError']);
    } finally {
      r.disconnect();
      await stream.close();
    }
  }, 30_000);

  test('redis: publishWait waits for replicas (WAIT) or the AOF (WAITAOF) and rejects when it cannot be met', async () => {
    const topic = uniqueName('durable');
    const none = createRedisStream({ url, keyPrefix: prefix, retentionIntervalMs: 0, publishWait: { replicas: 1, timeoutMs: 200 } });
    const aof = createRedisStream({ url, keyPrefix: prefix, retentionIntervalMs: 0, publishWait: { aof: true, timeoutMs: 200 } });
    try {
      // This Redis has no replica: WAIT 1 answers 0 after the timeout.
      await expect(none.publish(topic, [{ value: 1 }])).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/0 of 1 replicas/) });
      // Redis before 7.2 (no WAITAOF) or without appendonly: a clear reason; with both, it resolves.
      const r = new Redis(url);
      const version = String(await r.info('server')).match(/redis_version:(\d+)\.(\d+)/)!;
      const appendonly = ((await r.call('CONFIG', 'GET', 'appendonly')) as string[])[1];
      r.disconnect();
      const hasWaitAof = Number(version[1]) > 7 || (Number(version[1]) === 7 && Number(version[2]) >= 2);
      if (!hasWaitAof) await expect(aof.publish(topic, [{ value: 2 }])).rejects.toThrow(/WAITAOF needs Redis 7.2/);
      else if (appendonly !== 'yes') await expect(aof.publish(topic, [{ value: 2 }])).rejects.toThrow(/without appendonly/);
      else await expect(aof.publish(topic, [{ value: 2 }])).resolves.toBeUndefined();
    } finally {
      await Promise.all([none.close(), aof.close()]);
    }
  }, 30_000);

  test('redis: retention keeps what a group has not consumed', async () => {
    const topic = uniqueName('retain');
    const stream = createRedisStream({ url, keyPrefix: prefix, retentionMs: 0, retentionIntervalMs: 0 });
    try {
      const got: StreamMessage[] = [];
      const sub = await stream.subscribe(topic, { group: uniqueName('g'), maxWaitMs: 0 }, async (b) => {
        got.push(...b);
      });
      await stream.publish(topic, [{ value: 1 }, { value: 2 }]);
      await waitFor(() => got.length >= 2, 10_000, 'two messages');
      await sub.close();
      await stream.publish(topic, [{ value: 3 }]);
      await stream.retain();
      const r = new Redis(url);
      const left = (await r.call('XRANGE', `${prefix}${topic}`, '-', '+')) as [string, string[]][];
      r.disconnect();
      // 1 is gone; 2 (the last delivered) and 3 (not yet delivered) stay.
      expect(left.map(([, f]) => JSON.parse(f[1]!))).toEqual([2, 3]);
    } finally {
      await stream.close();
    }
  }, 30_000);
});
