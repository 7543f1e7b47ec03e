/**
 * Contract every EventStream adapter passes. Topics and groups are unique per test, so the
 * suite can run against a shared broker.
 */
import type { EventStream, StreamMessage, Subscription } from '../../src/ports/stream.js';
import { sleep, uniqueName, waitFor } from './wait.helpers.js';

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
      topic: string,
      group: string,
      opts: { maxBatchSize?: number; maxWaitMs?: number; handler?: (batch: StreamMessage[]) => Promise<void> } = {},
    ): Promise<Collector> {
      const c: Collector = { messages: [], batches: [], sub: undefined as unknown as Subscription };
      c.sub = await stream.subscribe(
        topic,
        {
          group,
          ...(opts.maxBatchSize !== undefined ? { maxBatchSize: opts.maxBatchSize } : {}),
          ...(opts.maxWaitMs !== undefined ? { maxWaitMs: opts.maxWaitMs } : {}),
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
      expect(a).toEqual({ key: 'screen-1', value: { kind: 'ping', n: 1, nested: { a: [1, 'two', null, true] } }, timestamp: ts });
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

    test('closing a subscription waits for its in-flight batch', async () => {
      const topic = uniqueName('inflight');
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
      await subs[subs.length - 1]!.close();
      expect(finished).toBe(true);
    });

    test('closing the stream waits for in-flight batches', async () => {
      const topic = uniqueName('closeall');
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
      await stream.close();
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
