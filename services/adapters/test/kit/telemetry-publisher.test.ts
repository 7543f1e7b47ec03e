/**
 * The telemetry publisher's failure paths: a stream that refuses, a spool that takes over and
 * drains once the stream is back (in this process or the next), a full buffer, a spool that
 * fails, and `hold` answering only once records are durably held. Nothing is lost silently: every
 * record that could not be held is counted and logged by id.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryStream } from '../../src/memory/stream.memory.js';
import type { EventStream, StreamMessage } from '@pylon/kit/ports/stream';
import { BufferedPublisher, packRecords, recordsOf } from '@pylon/kit/telemetry-publisher';
import fc from 'fast-check';
import { createFileSpool, type Spool } from '@pylon/kit/telemetry-spool';
import { waitFor } from '../../../kit/test/contract/wait.helpers.js';
import { captureLogger, spoolDirs } from './publisher.helpers.js';

interface Rec {
  id: string;
  account_id: string;
}
const rec = (i: number): Rec => ({ id: `r${i}`, account_id: 'acc' });

/** A memory stream whose publish can be switched off, with a consumer collecting what arrives. */
async function flakyStream() {
  const inner = createMemoryStream();
  const got: StreamMessage[] = [];
  await inner.subscribe('t', { group: 'g', maxWaitMs: 0 }, async (b) => {
    got.push(...b);
  });
  const state = { down: false, publishes: 0 };
  const stream: EventStream = {
    ...inner,
    async publish(topic, messages) {
      state.publishes++;
      if (state.down) throw new Error('broker unreachable');
      return inner.publish(topic, messages);
    },
  };
  const ids = () => got.flatMap((m) => recordsOf(m.value) as Rec[]).map((r) => r.id);
  return { stream, inner, state, got, ids };
}

const spoolDir = spoolDirs();
const spooledFiles = (dir: string) => readdirSync(join(dir, 't')).filter((f) => f.endsWith('.jsonl'));

test('without a spool a refused batch waits in memory and is retried: nothing lost', async () => {
  const s = await flakyStream();
  const p = new BufferedPublisher<Rec>(s.stream, 't', { maxBatch: 10, maxWaitMs: 5, retryBaseMs: 20, retryMaxMs: 50 });
  s.state.down = true;
  for (let i = 0; i < 25; i++) p.push(rec(i));
  await p.flush();
  await waitFor(() => s.state.publishes >= 3, 2_000, 'retries');
  s.state.down = false;
  await waitFor(() => s.got.length >= 25, 2_000, 'all 25 after recovery');
  expect(new Set(s.ids()).size).toBe(25);
  expect(p.stats).toMatchObject({ published: 25, lost: 0 });
  await p.close();
  await s.inner.close();
});

test('without a spool a full buffer loses records: counted and logged one line per record, by id', async () => {
  const s = await flakyStream();
  const { logger, lines } = captureLogger();
  s.state.down = true;
  const p = new BufferedPublisher<Rec>(s.stream, 't', { maxBatch: 1000, maxWaitMs: 10_000, maxBuffered: 5, logger });
  for (let i = 0; i < 8; i++) p.push(rec(i));
  expect(p.stats.lost).toBe(3);
  const lost = lines.filter((l) => l.msg === 'telemetry record lost');
  expect(lost.map((l) => l.obj.id)).toEqual(['r5', 'r6', 'r7']);
  expect(lost[0]!.obj).toMatchObject({ topic: 't', account_id: 'acc', reason: expect.stringContaining('buffer is full') });
  s.state.down = false;
  await p.close();
  await waitFor(() => s.got.length >= 5, 2_000, 'the 5 held');
  await s.inner.close();
});

test('with a spool: a refused batch is fsynced to disk, then republished and deleted once the stream is back', async () => {
  const s = await flakyStream();
  const dir = spoolDir();
  const p = new BufferedPublisher<Rec>(s.stream, 't', { maxBatch: 10, maxWaitMs: 5, retryBaseMs: 20, retryMaxMs: 50, spool: createFileSpool(dir) });
  s.state.down = true;
  for (let i = 0; i < 30; i++) p.push(rec(i));
  await p.flush();
  expect(p.stats.spooled).toBe(30);
  expect(spooledFiles(dir).length).toBe(3);
  s.state.down = false;
  await waitFor(() => s.got.length >= 30, 3_000, 'the spooled 30');
  await waitFor(() => spooledFiles(dir).length === 0, 2_000, 'spool emptied');
  expect(s.ids().sort()).toEqual(Array.from({ length: 30 }, (_, i) => `r${i}`).sort());
  expect(p.stats).toMatchObject({ published: 30, spooled: 30, lost: 0 });
  await p.close();
  await s.inner.close();
});

test('a full buffer spills to the spool instead of dropping (audit events never dropped)', async () => {
  const s = await flakyStream();
  const dir = spoolDir();
  s.state.down = true;
  const p = new BufferedPublisher<Rec>(s.stream, 't', { maxBatch: 1000, maxWaitMs: 10_000, maxBuffered: 5, spool: createFileSpool(dir), retryBaseMs: 20 });
  for (let i = 0; i < 12; i++) p.push(rec(i));
  await p.flush();
  expect(p.stats.lost).toBe(0);
  expect(p.stats.spooled).toBe(12);
  s.state.down = false;
  await waitFor(() => s.got.length >= 12, 3_000, 'all 12');
  await p.close();
  await s.inner.close();
});

test('spooled records survive the process: the next publisher on the spool republishes them at start', async () => {
  const dir = spoolDir();
  const first = await flakyStream();
  first.state.down = true;
  const p1 = new BufferedPublisher<Rec>(first.stream, 't', { spool: createFileSpool(dir) });
  for (let i = 0; i < 7; i++) p1.push(rec(i));
  await p1.close(); // the stream refuses: close leaves them in the spool
  expect(spooledFiles(dir).length).toBe(1);
  await first.inner.close();

  const second = await flakyStream();
  const p2 = new BufferedPublisher<Rec>(second.stream, 't', { spool: createFileSpool(dir) });
  await waitFor(() => second.got.length >= 7, 3_000, 'republished at start');
  expect(second.ids().sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  await p2.close();
  await second.inner.close();
});

describe('hold', () => {
  test('without a spool: rejects with UNAVAILABLE while the stream refuses; nothing published', async () => {
    const s = await flakyStream();
    const p = new BufferedPublisher<Rec>(s.stream, 't');
    s.state.down = true;
    await expect(p.hold([rec(1), rec(2)])).rejects.toMatchObject({ code: 'UNAVAILABLE', details: { retryAfter: 5 } });
    s.state.down = false;
    await p.hold([rec(3)]);
    await waitFor(() => s.ids().length >= 1, 1_000, 'the held record');
    expect(s.ids()).toEqual(['r3']);
    await p.close();
    await s.inner.close();
  });

  test('with a spool: resolves once the records are on disk, and they reach the stream later', async () => {
    const s = await flakyStream();
    const dir = spoolDir();
    const p = new BufferedPublisher<Rec>(s.stream, 't', { spool: createFileSpool(dir), retryBaseMs: 20 });
    s.state.down = true;
    await p.hold([rec(1), rec(2)]);
    expect(spooledFiles(dir)).toHaveLength(1);
    s.state.down = false;
    await waitFor(() => s.ids().length >= 2, 3_000, 'republished');
    await p.close();
    await s.inner.close();
  });

  test('a spool that fails: hold rejects (nothing promised), push logs each record lost', async () => {
    const s = await flakyStream();
    const { logger, lines } = captureLogger();
    const broken: Spool = {
      write: async () => {
        throw new Error('disk full');
      },
      next: async () => null,
      size: async () => ({ files: 0, bytes: 0 }),
    };
    const p = new BufferedPublisher<Rec>(s.stream, 't', { spool: broken, logger, maxWaitMs: 5 });
    s.state.down = true;
    await expect(p.hold([rec(1)])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    p.push(rec(2));
    p.push(rec(3));
    await p.flush();
    expect(p.stats.lost).toBe(2);
    expect(lines.filter((l) => l.msg === 'telemetry record lost').map((l) => l.obj.id)).toEqual(['r2', 'r3']);
    await p.close();
    await s.inner.close();
  });

  test('concurrent holds share one publish', async () => {
    const s = await flakyStream();
    const p = new BufferedPublisher<Rec>(s.stream, 't');
    await Promise.all(Array.from({ length: 20 }, (_, i) => p.hold([rec(i), rec(100 + i)])));
    expect(s.state.publishes).toBe(1);
    // One message per hold, carrying that hold's records.
    await waitFor(() => s.got.length >= 20, 1_000, 'the held batches');
    expect(s.got.map((m) => (recordsOf(m.value) as Rec[]).map((r) => r.id))).toEqual(Array.from({ length: 20 }, (_, i) => [`r${i}`, `r${100 + i}`]));
    await p.close();
    await s.inner.close();
  });
});

describe('packed batches', () => {
  const through = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
  test('recordsOf(pack(records)) is the records, as JSON carries them, whatever the records', () => {
    const value = fc.oneof(fc.constantFrom('', 'x', 0, 1.5, null, true), fc.string({ maxLength: 6 }), fc.integer());
    const record = fc.dictionary(
      fc.constantFrom('id', 'account_id', 'device_id', 'a', 'b', 'constructor', '__proto__'),
      fc.option(value, { nil: undefined, freq: 20 }),
      { maxKeys: 5 },
    );
    const sameShape = fc
      .tuple(fc.integer({ min: 1, max: 6 }), fc.array(value, { minLength: 6, maxLength: 6 }))
      .chain(([n, shared]) =>
        fc
          .array(fc.array(value, { minLength: n, maxLength: n }), { minLength: 1, maxLength: 8 })
          .map((rows) => rows.map((row, j) => Object.fromEntries(row.map((v, i) => [`c${i}`, i % 2 && j % 3 ? shared[i] : v])))),
      );
    fc.assert(
      fc.property(fc.oneof(fc.array(record, { maxLength: 5 }), sameShape), (records) => {
        const viaJson = through(records) as object[];
        expect(recordsOf(through(packRecords(records)))).toEqual(viaJson.length ? viaJson : []);
      }),
      { numRuns: 2000 },
    );
  });

  test('a hold larger than maxRecordsPerMessage is split into several messages, in order', async () => {
    const s = await flakyStream();
    const p = new BufferedPublisher<Rec>(s.stream, 't', { maxRecordsPerMessage: 4 });
    await p.hold(Array.from({ length: 10 }, (_, i) => rec(i)));
    await waitFor(() => s.got.length >= 3, 1_000, 'three messages');
    expect(s.got.map((m) => recordsOf(m.value).length)).toEqual([4, 4, 2]);
    expect(s.ids()).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}`));
    await p.close();
    await s.inner.close();
  });

  test('a request batch is packed: shared fields once, the rest by position', () => {
    const recs = [1, 2, 3].map((i) => ({ id: `r${i}`, account_id: 'acc', device_id: 'd1', file_name: '', duration: i }));
    expect(packRecords(recs)).toEqual({
      packed: 1,
      columns: ['id', 'account_id', 'device_id', 'file_name', 'duration'],
      shared: { account_id: 'acc', device_id: 'd1', file_name: '' },
      rows: [
        ['r1', 1],
        ['r2', 2],
        ['r3', 3],
      ],
    });
    // Different fields or an undefined value: sent as they are.
    expect(packRecords([{ a: 1 }, { b: 1 }])).toEqual([{ a: 1 }, { b: 1 }]);
    expect(packRecords([{ a: 1 }, { a: undefined }])).toEqual([{ a: 1 }, { a: undefined }]);
  });
});
