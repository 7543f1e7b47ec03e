/**
 * Runs the stream contract against a real Redis (Redis Streams): REDIS_URL when set, otherwise
 * redis://127.0.0.1:6379; skipped when it cannot connect (fails under CI). Streams carry a prefix
 * unique to this run. Also: a member that dies holding a batch (its connection dropped without
 * acknowledging) has the batch claimed by another member of the group after claimIdleMs;
 * retention trims only what every group consumed.
 */
import { Redis } from 'ioredis';
import type { StreamMessage } from '@pylon/kit';
import { createRedisStream } from '../../src/redis/stream.redis.js';
import { streamContract } from '@pylon/kit/contract/stream.contract';
import { redisProblem } from './redis-reachable.js';
import { skipNote, uniqueName, waitFor } from '../../../kit/test/contract/wait.helpers.js';

const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `${uniqueName('pylon-test-stream')}:`;

const problem = await redisProblem(url);
const make = () => createRedisStream({ url, keyPrefix: prefix, claimIdleMs: 300, retryBaseMs: 20, retryMaxMs: 200, retentionIntervalMs: 0 });

afterAll(async () => {
  if (problem !== null) return;
  const r = new Redis(url);
  const keys = await r.keys(`${prefix}*`);
  if (keys.length) await r.del(...keys);
  r.disconnect();
});

if (problem === null) {
  streamContract('redis', make, { timeoutMs: 10_000 });

  test('redis: a batch held by a member that died (no acknowledgement) is handled by another member after claimIdleMs', async () => {
    const topic = uniqueName('died');
    const group = uniqueName('g');
    const dying = make();
    const living = make();
    try {
      let taken: () => void = () => undefined;
      const holding = new Promise<void>((r) => (taken = r));
      // The first member takes the batch and never gets it done (as a process killed mid-batch:
      // it never acknowledges); its retries do not make the entry look active to the group.
      await dying.subscribe(topic, { group, maxWaitMs: 0 }, async () => {
        taken();
        throw new Error('never done');
      });
      await living.publish(topic, [{ key: 'k', value: 'held' }]);
      await holding;
      const got: StreamMessage[] = [];
      await living.subscribe(topic, { group, maxWaitMs: 0 }, async (b) => {
        got.push(...b);
      });
      await waitFor(() => got.length >= 1, 10_000, 'the claimed batch');
      expect(got.map((m) => m.value)).toEqual(['held']);
    } finally {
      await Promise.all([living.close(), dying.close()]);
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
} else if (process.env.CI) {
  test('redis is reachable under CI', () => {
    throw new Error(`stream.redis: cannot connect to ${url} (${problem}); CI must start redis-server`);
  });
} else {
  skipNote(`stream.redis: skipped, cannot connect to ${url} (${problem}); set REDIS_URL or start redis-server`);
  test.skip('stream.redis: needs a reachable Redis', () => undefined);
}
