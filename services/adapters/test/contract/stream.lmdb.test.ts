/**
 * The durable embedded stream: the stream contract, resume after a restart (messages, group
 * offsets, offset assignment), retention that never deletes unconsumed messages, and a real child
 * process killed with SIGKILL mid-load losing nothing it acknowledged.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLmdbStream, type DurableStream } from '../../src/lmdb/stream.lmdb.js';
import type { StreamMessage } from '@pylon/kit/ports/stream';
import { streamContract } from '@pylon/kit/contract/stream.contract';
import { sleep, waitFor } from '../../../kit/test/contract/wait.helpers.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pylon-stream-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

streamContract('lmdb', () => createLmdbStream({ path: tempDir(), retryBaseMs: 20, retryMaxMs: 200, retentionIntervalMs: 0 }));
// The same contract with almost everything read back from the log instead of memory.
streamContract('lmdb, 2 KiB in memory', () =>
  createLmdbStream({ path: tempDir(), retryBaseMs: 20, retryMaxMs: 200, retentionIntervalMs: 0, maxResidentBytes: 2048 }),
);

const values = (ms: StreamMessage[]) => ms.map((m) => (m.value as { n: number }).n);
const collect = async (stream: DurableStream, topic: string, group: string, got: StreamMessage[]) =>
  stream.subscribe(topic, { group, maxWaitMs: 0 }, async (b) => {
    got.push(...b);
  });

describe('lmdb stream: memory bounded by bytes', () => {
  const pad = 'x'.repeat(1000);
  const resident = (stream: DurableStream, topic: string) => stream.stats().topics.find((t) => t.topic === topic)?.residentBytes ?? 0;

  test('an unconsumed tail beyond the budget waits on disk only, and is delivered whole and in order', async () => {
    const path = tempDir();
    const budget = 64 * 1024;
    let stream = createLmdbStream({ path, retentionIntervalMs: 0, maxResidentBytes: budget });
    // The group exists (it holds retention) but is away while 2 MB are published.
    await (await collect(stream, 't', 'g', [])).close();
    let peak = 0;
    for (let i = 0; i < 2000; i += 100) {
      await stream.publish(
        't',
        Array.from({ length: 100 }, (_, k) => ({ key: 'a', value: { n: i + k, pad } })),
      );
      peak = Math.max(peak, resident(stream, 't'));
    }
    expect(peak).toBeLessThanOrEqual(budget);
    expect(peak).toBeGreaterThan(budget / 2); // what fits is kept: the head consumers read first
    const got: StreamMessage[] = [];
    const sub = await collect(stream, 't', 'g', got);
    await waitFor(() => got.length === 2000, 30_000, 'the whole tail');
    expect(values(got)).toEqual(Array.from({ length: 2000 }, (_, n) => n));
    expect(got.every((m) => (m.value as { pad: string }).pad === pad && m.key === 'a')).toBe(true);
    await sub.close();
    expect(resident(stream, 't')).toBe(0);

    // A backlog left on disk by a stopped process is read back, not loaded whole at start.
    await stream.publish(
      't',
      Array.from({ length: 500 }, (_, k) => ({ value: { n: 2000 + k, pad } })),
    );
    await stream.close();
    stream = createLmdbStream({ path, retentionIntervalMs: 0, maxResidentBytes: budget });
    expect(resident(stream, 't')).toBe(0);
    const after: StreamMessage[] = [];
    await collect(stream, 't', 'g', after);
    await waitFor(() => after.length === 500, 30_000, 'the backlog');
    expect(values(after)).toEqual(Array.from({ length: 500 }, (_, k) => 2000 + k));
    await stream.close();
  }, 60_000);
});

describe('lmdb stream: durability', () => {
  test('a restart resumes messages, group offsets and offset assignment', async () => {
    const path = tempDir();
    let stream = createLmdbStream({ path, retentionIntervalMs: 0 });
    const got: StreamMessage[] = [];
    const sub = await collect(stream, 't', 'g', got);
    await stream.publish(
      't',
      [0, 1, 2].map((n) => ({ key: 'a', value: { n } })),
    );
    await waitFor(() => got.length === 3, 2_000, 'first three');
    await sub.close();
    // Published while the group is away, and never consumed before the restart.
    await stream.publish(
      't',
      [3, 4].map((n) => ({ value: { n } })),
    );
    await stream.close();

    stream = createLmdbStream({ path, retentionIntervalMs: 0 });
    const after: StreamMessage[] = [];
    await collect(stream, 't', 'g', after);
    await stream.publish('t', [{ value: { n: 5 } }]);
    await waitFor(() => after.length === 3, 2_000, 'the rest');
    await sleep(50);
    expect(values(after)).toEqual([3, 4, 5]);
    // A new group starts after what every existing group consumed.
    const fresh: StreamMessage[] = [];
    await collect(stream, 't', 'fresh', fresh);
    await stream.publish('t', [{ value: { n: 6 } }]);
    await waitFor(() => fresh.length === 1, 2_000, 'a new group');
    expect(values(fresh)).toEqual([6]);
    expect(stream.stats().topics).toEqual([{ topic: 't', next: 7, residentBytes: expect.any(Number) }]);
    await stream.close();
  });

  test('retention deletes consumed messages by age and size, never unconsumed ones', async () => {
    const path = tempDir();
    let stream = createLmdbStream({ path, retentionIntervalMs: 0, retentionMs: 60_000, retentionBytes: 2_000 });
    const old = Date.now() - 120_000;
    await stream.publish(
      't',
      Array.from({ length: 10 }, (_, n) => ({ value: { n }, timestamp: old })),
    );
    await stream.publish(
      't',
      Array.from({ length: 100 }, (_, i) => ({ value: { n: 10 + i, pad: 'x'.repeat(100) } })),
    );
    // No group yet: nothing is consumed, nothing may go.
    expect(await stream.retain()).toEqual({ deleted: 0 });
    const got: StreamMessage[] = [];
    await stream.subscribe('t', { group: 'g', maxBatchSize: 50, maxWaitMs: 0 }, async (b) => {
      if (got.length >= 50) throw new Error('stop after the first batch: 60 stay unconsumed');
      got.push(...b);
    });
    await waitFor(() => got.length === 50, 2_000, 'first batch');
    await sleep(50);
    const { deleted } = await stream.retain();
    // The 10 old ones by age; of the 40 recent consumed ones, those past ~2 KB by size.
    expect(deleted).toBeGreaterThanOrEqual(10 + 20);
    expect(deleted).toBeLessThan(50);
    await stream.close();

    // The 60 unconsumed messages are all still there for the group.
    stream = createLmdbStream({ path, retentionIntervalMs: 0 });
    const rest: StreamMessage[] = [];
    await collect(stream, 't', 'g', rest);
    await waitFor(() => rest.length === 60, 2_000, 'the unconsumed 60');
    expect(values(rest)).toEqual(Array.from({ length: 60 }, (_, i) => 50 + i));
    await stream.close();
  });

  test('kill -9 mid-load: every acknowledged message is there after a restart; copies lose nothing either', async () => {
    const path = tempDir();
    const root = new URL('../../../../', import.meta.url).pathname;
    // node itself (not the tsx wrapper, which would outlive a SIGKILL sent to it) runs the producer.
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('../fixtures/stream-producer.child.ts', import.meta.url).pathname, path, '50'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acked = 0;
    let buffered = '';
    let ready = false;
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line === 'ready') ready = true;
        const m = /^ack (\d+) (\d+)$/.exec(line);
        if (m) acked = Math.max(acked, Number(m[1]) + Number(m[2]));
      }
    });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    // Generous limits: a busy 2-core machine may start the child slowly.
    await waitFor(() => ready, 60_000, 'the producer to start');
    await waitFor(() => acked >= 3_000, 60_000, '3,000 acknowledged messages');
    child.kill('SIGKILL');
    await exited;
    expect(acked).toBeGreaterThanOrEqual(3_000);

    const stream = createLmdbStream({ path, retentionIntervalMs: 0 });
    // The child's 'audit' group never consumed, so it holds every message on the log.
    const all: StreamMessage[] = [];
    await collect(stream, 'numbers', 'audit', all);
    await waitFor(() => all.length >= acked, 10_000, `the ${acked} acknowledged messages`);
    const numbers = new Set(values(all));
    for (let n = 0; n < acked; n++) if (!numbers.has(n)) throw new Error(`acknowledged message ${n} was lost`);
    // The copier resumes from its committed offset: with its copies from before the kill, every
    // stored message gets copied (at least once).
    const copies: StreamMessage[] = [];
    const stored = all.length;
    await collect(stream, 'copies', 'check', copies);
    await stream.subscribe('numbers', { group: 'copier', maxBatchSize: 200, maxWaitMs: 5 }, async (b) => {
      await stream.publish(
        'copies',
        b.map((m) => ({ key: m.key, value: m.value })),
      );
    });
    await waitFor(() => new Set(values(copies)).size >= stored, 20_000, 'every stored message copied');
    await stream.close();
  }, 120_000);
});
