import { createMemoryStream } from '../../src/memory/stream.memory.js';
import type { EventStream, StreamMessage } from '@pylon/kit/ports/stream';
import { settlesWithin, sleep, waitFor } from '../../../kit/test/contract/wait.helpers.js';
import { streamContract } from '@pylon/kit/contract/stream.contract';

streamContract('memory', () => createMemoryStream({ retryBaseMs: 20, retryMaxMs: 200 }));

describe('memory stream: bounds and in-process specifics', () => {
  let stream: EventStream;
  afterEach(async () => {
    await stream?.close();
  });

  const values = (ms: StreamMessage[]) => ms.map((m) => m.value);

  test('a publish beyond the bound waits until consumers make room, then lands', async () => {
    stream = createMemoryStream({ maxBuffered: 5, publishTimeoutMs: 0 });
    await stream.publish(
      't',
      [1, 2, 3, 4, 5].map((value) => ({ value })),
    );
    const blocked = stream.publish('t', [{ value: 6 }]);
    expect(await settlesWithin(blocked, 100)).toBe(false);

    const got: StreamMessage[] = [];
    await stream.subscribe('t', { group: 'g', maxWaitMs: 0 }, async (batch) => {
      got.push(...batch);
    });
    await expect(blocked).resolves.toBeUndefined();
    await waitFor(() => got.length >= 6, 2_000, 'all 6');
    expect(values(got)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('the bound counts what the slowest group has not consumed', async () => {
    stream = createMemoryStream({ maxBuffered: 3, publishTimeoutMs: 0 });
    const fast: StreamMessage[] = [];
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    const slow: StreamMessage[] = [];
    await stream.subscribe('t', { group: 'fast', maxWaitMs: 0 }, async (b) => {
      fast.push(...b);
    });
    await stream.subscribe('t', { group: 'slow', maxWaitMs: 0 }, async (b) => {
      await slowGate;
      slow.push(...b);
    });
    await stream.publish('t', [{ value: 1 }, { value: 2 }, { value: 3 }]);
    await waitFor(() => fast.length === 3, 1_000, 'fast group');
    const blocked = stream.publish('t', [{ value: 4 }]);
    expect(await settlesWithin(blocked, 100)).toBe(false);
    releaseSlow();
    await blocked;
    await waitFor(() => fast.length === 4 && slow.length === 4, 1_000, 'both groups');
    expect(values(slow)).toEqual([1, 2, 3, 4]);
  });

  test('a publish larger than the bound is fed through in order, nothing dropped', async () => {
    stream = createMemoryStream({ maxBuffered: 4, publishTimeoutMs: 0 });
    const got: StreamMessage[] = [];
    await stream.subscribe('t', { group: 'g', maxBatchSize: 3, maxWaitMs: 0 }, async (b) => {
      await sleep(1);
      got.push(...b);
    });
    const all = Array.from({ length: 50 }, (_, i) => ({ key: 'k', value: i }));
    await Promise.all([stream.publish('t', all.slice(0, 25)), stream.publish('t', all.slice(25))]);
    await waitFor(() => got.length >= 50, 3_000, '50 messages');
    expect(values(got)).toEqual(all.map((m) => m.value));
  });

  test('a publish that cannot get room in time rejects with UNAVAILABLE', async () => {
    stream = createMemoryStream({ maxBuffered: 2, publishTimeoutMs: 100 });
    await stream.publish('t', [{ value: 1 }]);
    const started = Date.now();
    await expect(stream.publish('t', [{ value: 2 }, { value: 3 }, { value: 4 }])).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      details: { topic: 't', published: 1, total: 3 },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  test('close rejects publishes still waiting for room', async () => {
    stream = createMemoryStream({ maxBuffered: 1, publishTimeoutMs: 0 });
    await stream.publish('t', [{ value: 1 }]);
    const blocked = stream.publish('t', [{ value: 2 }]);
    await stream.close();
    await expect(blocked).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  test('a partial batch waits at most maxWaitMs; a full batch goes at once', async () => {
    stream = createMemoryStream();
    const arrivals: { size: number; at: number }[] = [];
    await stream.subscribe('t', { group: 'g', maxBatchSize: 10, maxWaitMs: 200 }, async (b) => {
      arrivals.push({ size: b.length, at: Date.now() });
    });
    const t0 = Date.now();
    await stream.publish('t', [{ value: 1 }]);
    await waitFor(() => arrivals.length === 1, 2_000, 'partial batch');
    expect(arrivals[0]!.size).toBe(1);
    expect(arrivals[0]!.at - t0).toBeGreaterThanOrEqual(150);

    const t1 = Date.now();
    await stream.publish(
      't',
      Array.from({ length: 10 }, (_, i) => ({ value: i })),
    );
    await waitFor(() => arrivals.length === 2, 2_000, 'full batch');
    expect(arrivals[1]!.size).toBe(10);
    expect(arrivals[1]!.at - t1).toBeLessThan(150);
  });

  test('messages accumulate in one partial batch while it waits', async () => {
    stream = createMemoryStream();
    const batches: number[] = [];
    await stream.subscribe('t', { group: 'g', maxBatchSize: 100, maxWaitMs: 100 }, async (b) => {
      batches.push(b.length);
    });
    for (let i = 0; i < 5; i++) await stream.publish('t', [{ value: i }]);
    await waitFor(() => batches.reduce((a, b) => a + b, 0) === 5, 2_000, '5 messages');
    expect(batches).toEqual([5]);
  });

  test('the log is trimmed once every group passed it: a late group starts at the earliest retained', async () => {
    stream = createMemoryStream({ maxBuffered: 10, publishTimeoutMs: 0 });
    const early: StreamMessage[] = [];
    await stream.publish('t', [{ value: 'a' }, { value: 'b' }]);
    await stream.subscribe('t', { group: 'early', maxWaitMs: 0 }, async (b) => {
      early.push(...b);
    });
    await waitFor(() => early.length === 2, 1_000, 'early group');
    // Trimmed: the whole bound is free again.
    expect(
      await settlesWithin(
        stream.publish(
          't',
          Array.from({ length: 10 }, (_, i) => ({ value: i })),
        ),
        200,
      ),
    ).toBe(true);
    await waitFor(() => early.length === 12, 1_000, 'early group, second round');
    const late: StreamMessage[] = [];
    await stream.subscribe('t', { group: 'late', maxWaitMs: 0 }, async (b) => {
      late.push(...b);
    });
    await stream.publish('t', [{ value: 'c' }]);
    await waitFor(() => late.length >= 1, 1_000, 'late group');
    await sleep(50);
    expect(values(late)).toEqual(['c']);
  });

  test('two subscriptions in one group share it: each message goes to one of them', async () => {
    stream = createMemoryStream();
    const a: StreamMessage[] = [];
    const b: StreamMessage[] = [];
    const subA = await stream.subscribe('t', { group: 'g', maxBatchSize: 2, maxWaitMs: 0 }, async (batch) => {
      a.push(...batch);
    });
    await stream.subscribe('t', { group: 'g', maxBatchSize: 2, maxWaitMs: 0 }, async (batch) => {
      b.push(...batch);
    });
    await stream.publish(
      't',
      Array.from({ length: 10 }, (_, i) => ({ value: i })),
    );
    await waitFor(() => a.length + b.length >= 10, 1_000, '10 messages');
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect([...values(a), ...values(b)].sort((x, y) => (x as number) - (y as number))).toEqual(Array.from({ length: 10 }, (_, i) => i));
    // The group goes on with the remaining subscription.
    await subA.close();
    await stream.publish('t', [{ value: 'after' }]);
    await waitFor(() => values(b).includes('after'), 1_000, 'remaining subscriber');
    expect(values(a)).not.toContain('after');
  });

  test('handler retries back off exponentially, capped', async () => {
    stream = createMemoryStream({ retryBaseMs: 20, retryMaxMs: 80 });
    const attempts: number[] = [];
    await stream.subscribe('t', { group: 'g', maxWaitMs: 0 }, async () => {
      attempts.push(Date.now());
      if (attempts.length < 6) throw new Error('down');
    });
    await stream.publish('t', [{ value: 1 }]);
    await waitFor(() => attempts.length >= 6, 3_000, '6 attempts');
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    // 20, 40, 80, 80, 80 (timer jitter allowed)
    expect(gaps[0]!).toBeGreaterThanOrEqual(15);
    expect(gaps[1]!).toBeGreaterThanOrEqual(35);
    expect(gaps[2]!).toBeGreaterThanOrEqual(70);
    expect(Math.max(...gaps)).toBeLessThan(200);
  });

  test('onHandlerError hears about failures', async () => {
    const errors: { attempt: number; group: string }[] = [];
    stream = createMemoryStream({ retryBaseMs: 5, onHandlerError: (_e, info) => errors.push(info) });
    let calls = 0;
    await stream.subscribe('t', { group: 'g', maxWaitMs: 0 }, async () => {
      if (++calls === 1) throw new Error('once');
    });
    await stream.publish('t', [{ value: 1 }]);
    await waitFor(() => calls >= 2, 1_000, 'retry');
    expect(errors).toEqual([expect.objectContaining({ attempt: 1, group: 'g', topic: 't', size: 1 })]);
  });

  test('each group gets its own copy of a value', async () => {
    stream = createMemoryStream();
    const got: unknown[] = [];
    const mutate = async (b: StreamMessage[]) => {
      for (const m of b) {
        (m.value as { n: number }).n++;
        got.push(m.value);
      }
    };
    await stream.subscribe('t', { group: 'g1', maxWaitMs: 0 }, mutate);
    await stream.subscribe('t', { group: 'g2', maxWaitMs: 0 }, mutate);
    const value = { n: 1 };
    await stream.publish('t', [{ value }]);
    value.n = 100;
    await waitFor(() => got.length === 2, 1_000, 'both groups');
    expect(got).toEqual([{ n: 2 }, { n: 2 }]);
  });

  test('invalid consumer options are refused', async () => {
    stream = createMemoryStream();
    await expect(stream.subscribe('t', { group: '' }, async () => undefined)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(stream.subscribe('t', { group: 'g', maxBatchSize: 0 }, async () => undefined)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});
