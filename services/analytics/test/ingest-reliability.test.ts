/**
 * The ingest under failure, against the embedded chDB store and the durable stream: the store
 * going down mid-run (pause, back off, resume: exactly N rows), a forced redelivery of a batch that
 * was already inserted (stored once, rollup included; more cases in ingest-exactly-once.test.ts), a batch the store keeps refusing (its bad
 * message reaches dead_letters, the rest is stored) and its replay, readiness of a dead consumer,
 * and the lag / in / out / dead-letter metrics.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger, createOps, telemetryMetrics, TOPICS, type AnalyticsStore, type EventStream, type PingLogRecord } from '@pylon/kit';
import { createLmdbStream } from '@pylon/adapters/lmdb';
import { startIngest } from '../src/workers/ingest.js';
import { replayDeadLetters } from '../src/workers/dead-letters.js';
import { intercepted, until, withChdbStore } from './ingest.helpers.js';

let dir: string;
let store: AnalyticsStore;
const logger = createLogger({ level: (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent' });
/** The chDB store, with switchable failures: `down` (inserts and pings fail), `poison` (inserts naming it refused while up), `redeliver` (the next insert succeeds, then reports failure). */
const faults = { down: false, poison: '', redeliverOnce: false, inserts: 0, rows: 0 };
let analytics: AnalyticsStore;

withChdbStore('pylon-ingest-rel-', (s, d) => {
  [store, dir] = [s, d];
  analytics = intercepted(store, {
    async ping() {
      if (faults.down) throw new Error('connection refused');
      return store.ping();
    },
    async insert(table, rows, options) {
      faults.inserts++;
      if (faults.down) throw new Error('connection refused');
      if (faults.poison && rows.some((r) => r.account_id === faults.poison)) throw new Error('Cannot parse input: expected a number');
      await store.insert(table, rows, options);
      faults.rows += rows.length;
      if (faults.redeliverOnce) {
        faults.redeliverOnce = false;
        throw new Error('connection reset after the insert (the consumer cannot know it landed)');
      }
    },
  });
});
beforeEach(() => {
  Object.assign(faults, { down: false, poison: '', redeliverOnce: false, inserts: 0, rows: 0 });
});

const ping = (account: string, i: number): PingLogRecord => ({
  id: `${account}-${i}`,
  account_id: account,
  device_id: 'd1',
  timestamp: new Date(Date.UTC(2026, 4, 1, 10, 0, 0, i)).toISOString(),
  cpu_usage: i % 100,
  memory_usage: 1,
  disk_usage: 2,
  player_version: '1',
  ip_address: '10.0.0.1',
  external_ip_address: '',
});
const count = async (account: string, final = true) =>
  Number((await store.query<{ c: number }>(`SELECT count() AS c FROM ping_logs ${final ? 'FINAL' : ''} WHERE account_id = {a:String}`, { a: account }))[0]!.c);
async function publishAll(stream: EventStream, account: string, n: number, chunk = 100): Promise<void> {
  for (let i = 0; i < n; i += chunk) {
    await stream.publish(
      TOPICS.pings,
      Array.from({ length: Math.min(chunk, n - i) }, (_, j) => ({ key: account, value: ping(account, i + j) })),
    );
  }
}
const durable = async () => createLmdbStream({ path: await mkdtemp(join(dir, 'stream-')), retryBaseMs: 20, retryMaxMs: 200, retentionIntervalMs: 0 });

test('the store goes down mid-run: the ingest pauses, backs off and resumes; exactly N rows, none dead-lettered', async () => {
  const stream = await durable();
  const registry = createOps('ingest-test').registry;
  const metrics = telemetryMetrics(registry, { stream });
  const ingest = await startIngest({ stream, analytics, logger, maxBatchSize: 500, maxWaitMs: 20, maxAttempts: 2, metrics });
  await publishAll(stream, 'outage', 1000);
  await until(async () => (await count('outage')) >= 500, 30_000, 'the first rows');
  faults.down = true;
  const before = faults.inserts;
  await publishAll(stream, 'outage', 2000); // ids 0..1999: the first 1000 are replays, dropped as stored
  await new Promise((r) => setTimeout(r, 1500));
  expect(faults.inserts).toBeGreaterThan(before); // it kept trying, with backoff
  expect(faults.inserts - before).toBeLessThan(40);
  // While paused, the lag shows it.
  expect((await stream.lag()).find((l) => l.topic === TOPICS.pings)?.lag).toBeGreaterThan(0);
  expect(await registry.metrics()).toMatch(/pylon_telemetry_lag\{[^}]*topic="telemetry.pings"[^}]*group="analytics-ingest"[^}]*\} [1-9]/);
  faults.down = false;
  await until(async () => (await count('outage')) === 2000, 30_000, '2000 distinct rows after recovery');
  expect(Number((await store.query<{ c: number }>('SELECT count() AS c FROM dead_letters'))[0]!.c)).toBe(0);
  const text = await registry.metrics();
  // In counts deliveries (the retries during the outage too); out counts rows inserted, each once.
  expect(Number(/pylon_telemetry_ingest_in_total\{[^}]*topic="telemetry.pings"[^}]*\} (\d+)/.exec(text)?.[1])).toBeGreaterThanOrEqual(3000);
  expect(text).toMatch(/pylon_telemetry_ingest_out_total\{[^}]*table="ping_logs"[^}]*\} 2000/);
  expect(text).toMatch(/pylon_telemetry_ingest_duplicates_total\{[^}]*table="ping_logs"[^}]*\} 1000/);
  expect(await count('outage', false)).toBe(2000);
  await ingest.close();
  await stream.close();
}, 90_000);

test('a forced redelivery of an inserted batch does not double-count', async () => {
  const stream = await durable();
  const ingest = await startIngest({ stream, analytics, logger, maxBatchSize: 1000, maxWaitMs: 50 });
  faults.redeliverOnce = true;
  await publishAll(stream, 'redelivered', 300, 300);
  await until(async () => faults.rows >= 600, 30_000, 'the batch inserted twice');
  expect(faults.redeliverOnce).toBe(false);
  // The retry is the same insert under the same deduplication token: the store skipped it, so the
  // rows are stored once (not only collapsed under FINAL), and so is the hourly rollup.
  await until(async () => (await count('redelivered')) === 300, 10_000, '300 rows');
  await new Promise((r) => setTimeout(r, 500));
  expect(await count('redelivered')).toBe(300);
  expect(await count('redelivered', false)).toBe(300);
  const rollup = await store.query<{ c: number }>("SELECT sum(pings) AS c FROM ping_rollup_hour WHERE account_id = 'redelivered'");
  expect(Number(rollup[0]!.c)).toBe(300);
  await ingest.close();
  await stream.close();
}, 60_000);

test('a message the store keeps refusing goes to dead_letters; the rest of its batch is stored; replay brings it back', async () => {
  const stream = await durable();
  const ingest = await startIngest({ stream, analytics, logger, maxBatchSize: 100, maxWaitMs: 20, maxAttempts: 2 });
  faults.poison = 'poison';
  await stream.publish(TOPICS.pings, [
    ...Array.from({ length: 20 }, (_, i) => ({ key: 'neighbour', value: ping('neighbour', i) })),
    { key: 'poison', value: ping('poison', 1) },
    // Not a record at all (what a foreign producer might write).
    { key: 'junk', value: 'not a record' },
  ]);
  await until(async () => Number((await store.query<{ c: number }>('SELECT count() AS c FROM dead_letters FINAL'))[0]!.c) === 2, 30_000, 'two dead letters');
  expect(await count('neighbour')).toBe(20);
  const letters = await store.query<{ topic: string; key: string; value: string; error: string }>(
    'SELECT topic, key, value, error FROM dead_letters FINAL ORDER BY key',
  );
  expect(letters).toEqual([
    expect.objectContaining({ topic: TOPICS.pings, key: 'junk', value: '"not a record"', error: expect.stringContaining('not a record') }),
    expect.objectContaining({ topic: TOPICS.pings, key: 'poison', error: expect.stringContaining('Cannot parse') }),
  ]);
  expect(JSON.parse(letters[1]!.value)).toMatchObject({ id: 'poison-1', account_id: 'poison' });

  // The operator fixes the cause, then replays: the record lands.
  faults.poison = '';
  const replay = await replayDeadLetters({ stream, analytics: store, logger });
  expect(replay).toMatchObject({ replayed: 2, topics: { [TOPICS.pings]: 2 } });
  await until(async () => (await count('poison')) === 1, 30_000, 'the replayed record');
  // Marked: a second replay finds nothing (the junk message is dead-lettered again, as a new letter).
  expect(Number((await store.query<{ c: number }>("SELECT count() AS c FROM dead_letters FINAL WHERE replayed = 0 AND key = 'poison'"))[0]!.c)).toBe(0);
  await ingest.close();
  await stream.close();
}, 60_000);

test('check() fails once the consumer is no longer running', async () => {
  const stream = await durable();
  const ingest = await startIngest({ stream, analytics, logger });
  await expect(ingest.check()).resolves.toBeUndefined();
  await stream.close(); // the consumer stops with its stream
  await expect(ingest.check()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  await ingest.close();
});
