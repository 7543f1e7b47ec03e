/**
 * Contract every EventStream adapter passes. Topics and groups are unique per test, so the
 * suite can run against a shared broker.
 */
import { TransientError, type DeadLetter, type EventStream, type StreamMessage, type Subscription } from '../ports/stream.js';
import { sleep, uniqueName, waitFor } from './wait.js';
import { afterEach, beforeEach, describe, expect, test } from './harness.js';

export interface StreamContractOptions {
  /** Longest wait for deliveries (a broker needs time to join groups). Default 5 000 ms. */
  timeoutMs?: number;
}

interface Collector {
  messages: StreamMessage[];
  batches: StreamMessage[][];
  sub: Subscription;
}

export function streamContract(name: string, make: () => EventStream | Promise<EventStream>, options: StreamContractOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 5_000;

  describe(`EventStream contract: ${name}`, () => {
    let stream: EventStream;
    const subs: Subscription[] = [];

    beforeEach(async () => {
      stream = await make();
    });

    afterEach(async () => {
      await Promise.all(subs.splice(0).map((s) => s.close().catch(() => undefined)));
      await stream.close();
    });

    async function collect(
      topic: string | string[],
      group: string,
      opts: {
        maxBatchSize?: number;
        maxWaitMs?: number;
        deadLetter?: { topic: string; maxAttempts: number };
        handler?: (batch: StreamMessage[]) => Promise<void>;
      } = {},
    ): Promise<Collector> {
      const c: Collector = { messages: [], batches: [], sub: undefined as unknown as Subscription };
      c.sub = await stream.subscribe(
        topic,
        {
          group,
          ...(opts.maxBatchSize !== undefined ? { maxBatchSize: opts.maxBatchSize } : {}),
          ...(opts.maxWaitMs !== undefined ? { maxWaitMs: opts.maxWaitMs } : {}),
          ...(opts.deadLetter ? { deadLetter: opts.deadLetter } : {}),
        },
        async (batch) => {
          if (opts.handler) await opts.handler(batch);
          c.batches.push(batch);
          c.messages.push(...batch);
        },
      );
      subs.push(c.sub);
      return c;
    }

    test('ping resolves', async () => {
      await expect(stream.ping()).resolves.toBeUndefined();
    });

    test('publish then subscribe: a new group gets earlier messages, with key, value and timestamp', async () => {
      const topic = uniqueName('roundtrip');
      const ts = Date.UTC(2024, 0, 2, 3, 4, 5);
      await stream.publish(topic, [
        { key: 'screen-1', value: { kind: 'ping', n: 1, nested: { a: [1, 'two', null, true] } }, timestamp: ts },
        { key: 'screen-2', value: 'plain text' },
        { value: 42 },
      ]);
      const before = Date.now();
      const c = await collect(topic, uniqueName('g'));
      await waitFor(() => c.messages.length >= 3, timeoutMs, '3 messages');
      expect(c.messages).toHaveLength(3);
      const [a, b, d] = c.messages;
      expect(a).toEqual({ key: 'screen-1', value: { kind: 'ping', n: 1, nested: { a: [1, 'two', null, true] } }, timestamp: ts, topic });
      expect(b?.key).toBe('screen-2');
      expect(b?.value).toBe('plain text');
      expect(d?.value).toBe(42);
      expect(d?.key ?? undefined).toBeUndefined();
      // The producer side stamps messages that carry no timestamp.
      expect(typeof b?.timestamp).toBe('number');
      expect(b!.timestamp!).toBeGreaterThan(before - 60_000);
    });

    test('subscribe then publish: messages arrive', async () => {
      const topic = uniqueName('live');
      const c = await collect(topic, uniqueName('g'));
      await stream.publish(topic, [{ key: 'k', value: { i: 1 } }]);
      await stream.publish(topic, [{ key: 'k', value: { i: 2 } }]);
      await waitFor(() => c.messages.length >= 2, timeoutMs, '2 messages');
      expect(c.messages.map((m) => m.value)).toEqual([{ i: 1 }, { i: 2 }]);
    });

    test('publishing nothing is a no-op', async () => {
      await expect(stream.publish(uniqueName('empty'), [])).resolves.toBeUndefined();
    });

    test('order holds per key', async () => {
      const topic = uniqueName('order');
      const keys = ['a', 'b', 'c', 'd'];
      const perKey = 50;
      for (let i = 0; i < perKey; i += 10) {
        const batch: StreamMessage[] = [];
        for (let j = i; j < i + 10; j++) for (const key of keys) batch.push({ key, value: { key, seq: j } });
        await stream.publish(topic, batch);
      }
      const c = await collect(topic, uniqueName('g'), { maxBatchSize: 7 });
      await waitFor(() => c.messages.length >= keys.length * perKey, timeoutMs, 'all messages');
      for (const key of keys) {
        const seqs = c.messages.filter((m) => m.key === key).map((m) => (m.value as { seq: number }).seq);
        expect(seqs).toEqual(Array.from({ length: perKey }, (_, i) => i));
      }
    });

    test('two groups each get every message', async () => {
      const topic = uniqueName('groups');
      const g1 = await collect(topic, uniqueName('g1'));
      const g2 = await collect(topic, uniqueName('g2'));
      const values = Array.from({ length: 30 }, (_, i) => ({ key: `k${i % 3}`, value: i }));
      await stream.publish(topic, values.slice(0, 15));
      await stream.publish(topic, values.slice(15));
      await waitFor(() => g1.messages.length >= 30 && g2.messages.length >= 30, timeoutMs, 'both groups');
      const sorted = (c: Collector) => c.messages.map((m) => m.value as number).sort((x, y) => x - y);
      expect(sorted(g1)).toEqual(values.map((v) => v.value));
      expect(sorted(g2)).toEqual(values.map((v) => v.value));
    });

    test('batches never exceed maxBatchSize', async () => {
      const topic = uniqueName('batch');
      await stream.publish(
        topic,
        Array.from({ length: 25 }, (_, i) => ({ key: 'same', value: i })),
      );
      const c = await collect(topic, uniqueName('g'), { maxBatchSize: 10, maxWaitMs: 20 });
      await waitFor(() => c.messages.length >= 25, timeoutMs, '25 messages');
      expect(c.messages).toHaveLength(25);
      expect(c.batches.length).toBeGreaterThanOrEqual(3);
      for (const b of c.batches) {
        expect(b.length).toBeGreaterThan(0);
        expect(b.length).toBeLessThanOrEqual(10);
      }
    });

    test('a failing handler sees the same messages again: at-least-once, nothing lost', async () => {
      const topic = uniqueName('retry');
      const seen: number[] = [];
      let failures = 0;
      const c = await collect(topic, uniqueName('g'), {
        handler: async (batch) => {
          for (const m of batch) seen.push(m.value as number);
          if (batch.some((m) => m.value === 3) && failures < 2) {
            failures++;
            throw new TypeError('handler bug');
          }
        },
      });
      await stream.publish(
        topic,
        Array.from({ length: 6 }, (_, i) => ({ key: 'k', value: i })),
      );
      await waitFor(() => c.messages.length >= 6, timeoutMs * 2, 'redelivery');
      expect(failures).toBe(2);
      // Every message was handed over successfully once, in order...
      expect(c.messages.map((m) => m.value)).toEqual([0, 1, 2, 3, 4, 5]);
      // ...and message 3 was seen three times (two failures, one success).
      expect(seen.filter((v) => v === 3)).toHaveLength(3);
    });

    test.each([
      { closing: 'a subscription', waitsFor: 'its in-flight batch', prefix: 'inflight', close: () => subs[subs.length - 1]!.close() },
      { closing: 'the stream', waitsFor: 'in-flight batches', prefix: 'closeall', close: () => stream.close() },
    ])('closing $closing waits for $waitsFor', async ({ prefix, close }) => {
      const topic = uniqueName(prefix);
      let started = false;
      let finished = false;
      await collect(topic, uniqueName('g'), {
        handler: async () => {
          started = true;
          await sleep(300);
          finished = true;
        },
      });
      await stream.publish(topic, [{ value: 'slow' }]);
      await waitFor(() => started, timeoutMs, 'handler start');
      await close();
      expect(finished).toBe(true);
    });

    test('a group resumes after its last consumed message when it subscribes again', async () => {
      const topic = uniqueName('resume');
      const group = uniqueName('g');
      const first = await collect(topic, group);
      await stream.publish(topic, [{ value: 1 }, { value: 2 }]);
      await waitFor(() => first.messages.length >= 2, timeoutMs, 'first 2');
      await first.sub.close();
      await stream.publish(topic, [{ value: 3 }, { value: 4 }]);
      const second = await collect(topic, group);
      await waitFor(() => second.messages.length >= 2, timeoutMs, 'next 2');
      await sleep(100);
      expect(second.messages.map((m) => m.value)).toEqual([3, 4]);
    });

    test('one group on several topics: one consumer reads them all, each batch from one topic', async () => {
      const topics = [uniqueName('multi-a'), uniqueName('multi-b'), uniqueName('multi-c')];
      const c = await collect(topics, uniqueName('g'));
      for (const [i, t] of topics.entries())
        await stream.publish(t, [
          { key: 'k', value: i * 10 },
          { key: 'k', value: i * 10 + 1 },
        ]);
      await waitFor(() => c.messages.length >= 6, timeoutMs, '6 messages from 3 topics');
      for (const b of c.batches) expect(new Set(b.map((m) => m.topic)).size).toBe(1);
      expect(c.messages.map((m) => [m.topic, m.value]).sort()).toEqual(
        [
          [topics[0], 0],
          [topics[0], 1],
          [topics[1], 10],
          [topics[1], 11],
          [topics[2], 20],
          [topics[2], 21],
        ].sort(),
      );
      expect(c.sub.alive()).toBe(true);
      await waitFor(() => true, 10);
      const lag = await stream.lag();
      for (const t of topics) expect(lag.find((l) => l.topic === t)?.lag ?? 0).toBe(0);
    });

    test('two members in one group: every message handled once between them, and the group goes on when one leaves', async () => {
      const topic = uniqueName('members');
      const group = uniqueName('g');
      const a = await collect(topic, group, { maxBatchSize: 5, maxWaitMs: 0 });
      const b = await collect(topic, group, { maxBatchSize: 5, maxWaitMs: 0 });
      await stream.publish(
        topic,
        Array.from({ length: 40 }, (_, i) => ({ key: `k${i % 8}`, value: i })),
      );
      await waitFor(() => a.messages.length + b.messages.length >= 40, timeoutMs, '40 messages between two members');
      await sleep(200);
      const all = [...a.messages, ...b.messages].map((m) => m.value as number).sort((x, y) => x - y);
      expect(all).toEqual(Array.from({ length: 40 }, (_, i) => i));
      await a.sub.close();
      await stream.publish(topic, [{ key: 'k0', value: 'after' }]);
      await waitFor(() => b.messages.some((m) => m.value === 'after'), timeoutMs, 'the remaining member');
    });

    test('batching under maxWaitMs: small publishes close together arrive as fewer, larger batches', async () => {
      const topic = uniqueName('wait');
      const c = await collect(topic, uniqueName('g'), { maxBatchSize: 100, maxWaitMs: 400 });
      await sleep(100);
      for (let i = 0; i < 10; i++) await stream.publish(topic, [{ key: 'k', value: i }]);
      await waitFor(() => c.messages.length >= 10, timeoutMs, '10 messages');
      expect(c.batches.length).toBeLessThan(10);
      expect(Math.max(...c.batches.map((b) => b.length))).toBeGreaterThan(1);
    });

    test('redelivery after a crash without commit: a new member of the group gets the messages again', async () => {
      const topic = uniqueName('crash');
      const group = uniqueName('g');
      const firstSaw: unknown[] = [];
      const first = await collect(topic, group, {
        maxWaitMs: 0,
        handler: async (batch) => {
          firstSaw.push(...batch.map((m) => m.value));
          throw new Error('process died before committing');
        },
      });
      await stream.publish(topic, [
        { key: 'k', value: 'a' },
        { key: 'k', value: 'b' },
      ]);
      await waitFor(() => firstSaw.length >= 2, timeoutMs, 'the first delivery');
      await first.sub.close();
      const second = await collect(topic, group, { maxWaitMs: 0 });
      await waitFor(() => second.messages.length >= 2, timeoutMs, 'the redelivery');
      expect(second.messages.map((m) => m.value)).toEqual(['a', 'b']);
    });

    test('a permanently failing message reaches the dead letter; the others are handled; transient errors never dead-letter', async () => {
      const topic = uniqueName('poison');
      const dlq = uniqueName('poison-dlq');
      const letters = await collect(dlq, uniqueName('dlq-reader'), { maxWaitMs: 0 });
      let transientLeft = 3;
      const c = await collect(topic, uniqueName('g'), {
        maxWaitMs: 0,
        deadLetter: { topic: dlq, maxAttempts: 2 },
        handler: async (batch) => {
          if (batch.some((m) => m.value === 'flaky') && transientLeft-- > 0) throw new TransientError('store down');
          if (batch.some((m) => m.value === 'poison')) throw new Error('cannot parse poison');
        },
      });
      await stream.publish(topic, [
        { key: 'k', value: 1 },
        { key: 'k', value: 'poison' },
        { key: 'k', value: 'flaky' },
        { key: 'k', value: 3 },
      ]);
      await waitFor(() => c.messages.length >= 3 && letters.messages.length >= 1, timeoutMs * 2, 'the good messages and one dead letter');
      await sleep(200);
      expect(c.messages.map((m) => m.value)).toEqual([1, 'flaky', 3]);
      expect(letters.messages).toHaveLength(1);
      expect(letters.messages[0]!.value as DeadLetter).toMatchObject({ topic, value: 'poison', key: 'k', attempts: 2, error: 'cannot parse poison' });
    });

    test('a non-JSON value is refused at publish and the topic goes on', async () => {
      const topic = uniqueName('nonjson');
      await expect(stream.publish(topic, [{ value: () => 1 }])).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      const c = await collect(topic, uniqueName('g'), { maxWaitMs: 0 });
      await stream.publish(topic, [{ value: 'fine' }]);
      await waitFor(() => c.messages.length >= 1, timeoutMs, 'the next message');
      expect(c.messages.map((m) => m.value)).toEqual(['fine']);
    });

    test('a value that is not JSON-serialisable is refused', async () => {
      await expect(stream.publish(uniqueName('bad'), [{ value: { n: 10n } }])).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    });

    test('after close, publish and ping reject as unavailable', async () => {
      await stream.close();
      await expect(stream.publish(uniqueName('closed'), [{ value: 1 }])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(stream.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    });
  });
}
