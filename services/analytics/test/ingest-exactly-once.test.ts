/**
 * Exactly once into the rollups (issue 17d), against the embedded chDB store and the durable
 * stream: the same records delivered again in every way the pipeline can deliver them (a player's
 * retried request, a partially overlapping batch, a batch whose insert landed but was reported
 * failed and is retried in place, a batch redelivered to a new consumer after a crash without a
 * commit, repeats within one batch) leave every rollup total equal to the raw answer, and every
 * analytics query answers the same from the raw tables and from each rollup grain.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createLogger,
  createOps,
  telemetryMetrics,
  TOPICS,
  type AnalyticsStore,
  type EventLogRecord,
  type EventStream,
  type ImpressionRecord,
  type PingLogRecord,
  type PlayLogRecord,
} from '@pylon/kit';
import { createLmdbStream } from '@pylon/adapters/lmdb';
import { startIngest, type Ingest } from '../src/workers/ingest.js';
import { LOOKUP_VALUES } from '../src/workers/exactly-once.js';
import { repairRollups, ROLLUPS_OF } from '../src/workers/rollup-repair.js';
import { countVisitorDays } from '../src/workers/visitor-days.js';
import { expectQueriesAgree as queriesAgree, intercepted, until, withChdbStore } from './ingest.helpers.js';

let dir: string;
let store: AnalyticsStore;
const logger = createLogger({ level: (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent' });
/** `landThenFail`: the next insert lands, then reports a failure (the consumer cannot know it landed). */
const faults = { landThenFail: 0, inserts: 0 };
let analytics: AnalyticsStore;

withChdbStore('pylon-ingest-once-', (s, d) => {
  [store, dir] = [s, d];
  analytics = intercepted(store, {
    async insert(table, rows, options) {
      faults.inserts++;
      await store.insert(table, rows, options);
      if (faults.landThenFail > 0) {
        faults.landThenFail--;
        throw new Error('connection reset after the insert');
      }
    },
  });
});

const DAY = Date.UTC(2026, 4, 1);
const HOUR = 3_600_000;
/** Records i of one account: two devices, two files, three hours, a few sessions, visitors and genders. */
const at = (i: number) => new Date(DAY + 9 * HOUR + ((i * 7919) % (3 * HOUR))).toISOString();
/** What every record i of `acc` has: its id (`<kind><i>`), the account, one of two devices, its time. */
const record = (kind: string, acc: string, i: number) => ({ id: `${kind}${i}`, account_id: acc, device_id: `d${i % 2}`, timestamp: at(i) });
const play = (acc: string, i: number): PlayLogRecord => ({
  ...record('p', acc, i),
  file_id: `f${i % 3}`,
  file_name: `file ${i % 3}`,
  duration: 5 + (i % 7),
  type: 'image',
  playlist_id: '',
  schedule_id: '',
  file_known: 1,
});
const event = (acc: string, i: number): EventLogRecord => ({
  ...record('e', acc, i),
  session_id: `s${i % 5}`,
  event_name: i % 2 ? 'touch' : 'scan',
  properties: '{}',
  latitude: null,
  longitude: null,
});
const impression = (acc: string, i: number): ImpressionRecord => ({
  ...record('i', acc, i),
  file_id: `f${i % 3}`,
  sensor: 'face',
  dwell_time: 1 + (i % 4),
  gender: i % 2 ? 'MALE' : 'FEMALE',
  age_range: '25-34',
  visitor_id: `v${i % 9}`,
  latitude: null,
  longitude: null,
});
const ping = (acc: string, i: number): PingLogRecord => ({
  ...record('g', acc, i),
  cpu_usage: i % 100,
  memory_usage: 50,
  disk_usage: 10,
  player_version: '1',
  ip_address: '',
  external_ip_address: '',
});

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
/** Publishes records i of every kind as held player requests do: one message per `per` records. */
async function publish(stream: EventStream, acc: string, ids: number[], per = 50): Promise<void> {
  for (const [topic, make] of [
    [TOPICS.plays, play],
    [TOPICS.events, event],
    [TOPICS.impressions, impression],
    [TOPICS.pings, ping],
  ] as const) {
    const messages = [];
    for (let k = 0; k < ids.length; k += per) messages.push({ key: acc, value: ids.slice(k, k + per).map((i) => make(acc, i)) });
    await stream.publish(topic, messages);
  }
}

const num = async (sql: string, acc: string) => Number((await store.query<{ v: number }>(sql, { a: acc }))[0]?.v ?? 0);
/** Raw totals (FINAL: what is stored once) and every rollup's totals, for one account. */
async function totals(acc: string) {
  const w = 'WHERE account_id = {a:String}';
  const plays = await num(`SELECT count() AS v FROM play_logs FINAL ${w}`, acc);
  const duration = await num(`SELECT sum(duration) AS v FROM play_logs FINAL ${w}`, acc);
  const events = await num(`SELECT count() AS v FROM event_logs FINAL ${w}`, acc);
  const impressions = await num(`SELECT count() AS v FROM impressions FINAL ${w}`, acc);
  const dwell = await num(`SELECT sum(dwell_time) AS v FROM impressions FINAL ${w}`, acc);
  const pings = await num(`SELECT count() AS v FROM ping_logs FINAL ${w}`, acc);
  const cpu = await num(`SELECT sum(cpu_usage) AS v FROM ping_logs FINAL ${w}`, acc);
  const seen = (period: string) =>
    num(`SELECT uniqExact(device_id, file_id, ${period}(timestamp), visitor_id) AS v FROM impressions FINAL ${w} AND visitor_id != ''`, acc);
  const visitorsHour = await seen('toStartOfHour');
  const visitorsDay = await seen('toStartOfDay');
  /** 006's visitor rows: distinct (device, file, period, visitor), as the reads count them. */
  /** A rollup's sums of these columns, in order. */
  const sums = async (rollup: string, ...columns: string[]): Promise<number[]> => {
    const out: number[] = [];
    for (const c of columns) out.push(await num(`SELECT sum(${c}) AS v FROM ${rollup} ${w}`, acc));
    return out;
  };
  const visitorRows = (rollup: string) => num(`SELECT uniqExact(device_id, file_id, period, visitor) AS v FROM ${rollup} ${w}`, acc);
  return {
    raw: { plays, duration, events, impressions, dwell, pings, cpu, visitorsHour, visitorsDay },
    rollups: {
      play_rollup_minute: await sums('play_rollup_minute', 'plays', 'duration'),
      play_rollup_hour: await sums('play_rollup_hour', 'plays', 'duration'),
      play_rollup_day: await sums('play_rollup_day', 'plays', 'duration'),
      event_rollup_hour: await sums('event_rollup_hour', 'events'),
      audience_rollup_hour: await sums('audience_rollup_hour', 'impressions', 'dwell_sum'),
      audience_rollup_day: await sums('audience_rollup_day', 'impressions', 'dwell_sum'),
      ping_rollup_hour: await sums('ping_rollup_hour', 'pings'),
      device_rollup_hour: await sums('device_rollup_hour', 'pings', 'cpu_sum'),
      device_rollup_day: await sums('device_rollup_day', 'pings', 'cpu_sum'),
      audience_visitors_hour: [await visitorRows('audience_visitors_hour')],
      audience_visitors_day: [await visitorRows('audience_visitors_day')],
    },
  };
}
/** Every rollup total equals the raw one. */
async function expectRollupsEqualRaw(acc: string, n: number): Promise<void> {
  const t = await totals(acc);
  expect(t.raw).toMatchObject({ plays: n, events: n, impressions: n, pings: n });
  expect(t.rollups).toEqual({
    play_rollup_minute: [n, t.raw.duration],
    play_rollup_hour: [n, t.raw.duration],
    play_rollup_day: [n, t.raw.duration],
    event_rollup_hour: [n],
    audience_rollup_hour: [n, t.raw.dwell],
    audience_rollup_day: [n, t.raw.dwell],
    ping_rollup_hour: [n],
    device_rollup_hour: [n, t.raw.cpu],
    device_rollup_day: [n, t.raw.cpu],
    audience_visitors_hour: [t.raw.visitorsHour],
    audience_visitors_day: [t.raw.visitorsDay],
  });
  expect(t.raw.visitorsHour).toBeGreaterThan(0);
}

/**
 * The analytics queries answer the same from the raw tables and from every rollup grain the planner
 * allows: with the day's unique visitor counts as they are (009: invalid where records arrived after
 * a count), and again once the day (over) is counted anew.
 */
const expectQueriesAgree = async (acc: string) => {
  const compared = await queriesAgree(store, acc, DAY);
  await countVisitorDays(store);
  expect(await queriesAgree(store, acc, DAY)).toBe(compared);
  return compared;
};

/** Until the group consumed everything published (the offset moves only after a batch's inserts). */
const drained = (stream: EventStream) => until(async () => (await stream.lag()).every((l) => l.lag === 0), 30_000, 'the ingest to catch up');
const durable = async (retryBaseMs = 20) =>
  createLmdbStream({ path: await mkdtemp(join(dir, 'stream-')), retryBaseMs, retryMaxMs: Math.max(200, retryBaseMs), retentionIntervalMs: 0 });
/**
 * `body` with a durable stream (retrying after `retryBaseMs`) and an ingest consuming it; the
 * consumer's `crash` stops that ingest before it retries or commits, its `start` starts a new one
 * (same options). The stream and the last ingest are closed after.
 */
async function ingesting(
  o: { maxBatchSize: number; maxWaitMs: number; retryBaseMs?: number },
  body: (stream: EventStream, consumer: { crash(): Promise<void>; start(): Promise<void> }) => Promise<void>,
): Promise<void> {
  const stream = await durable(o.retryBaseMs);
  const start = () => startIngest({ stream, analytics, logger, maxBatchSize: o.maxBatchSize, maxWaitMs: o.maxWaitMs });
  let ingest: Ingest | undefined = await start();
  const consumer = {
    async crash() {
      await ingest?.close();
      ingest = undefined;
    },
    async start() {
      ingest = await start();
    },
  };
  try {
    await body(stream, consumer);
  } finally {
    await ingest?.close();
    await stream.close();
  }
}

test('records delivered again (retried requests, overlapping batches, repeats in a batch) are counted once in every rollup', async () => {
  const stream = await durable();
  const registry = createOps('ingest-once-test').registry;
  const metrics = telemetryMetrics(registry, { stream });
  const ingest = await startIngest({ stream, analytics, logger, maxBatchSize: 7, maxWaitMs: 20, metrics });
  const acc = 'once-replays';
  await publish(stream, acc, range(0, 300));
  await drained(stream);
  await expectRollupsEqualRaw(acc, 300);
  await countVisitorDays(store); // the day is over: the redeliveries below add visitors to a counted day

  // The same requests again (a player that did not see its 202s), then a batch overlapping the
  // stored ones by half, then a request that repeats its own records.
  await publish(stream, acc, range(0, 300));
  await publish(stream, acc, range(150, 450), 100);
  await publish(stream, acc, [...range(450, 500), ...range(450, 500), 10, 20]);
  await drained(stream);
  await expectRollupsEqualRaw(acc, 500);
  expect(await expectQueriesAgree(acc)).toBeGreaterThan(0);

  const text = await registry.metrics();
  // Per table: 300 + 150 already stored, 50 + 2 repeated or stored: 502 dropped, 500 inserted.
  expect(text).toMatch(/pylon_telemetry_ingest_duplicates_total\{[^}]*table="play_logs"[^}]*\} 502/);
  expect(text).toMatch(/pylon_telemetry_ingest_out_total\{[^}]*table="play_logs"[^}]*\} 500/);
  await ingest.close();
  await stream.close();
}, 120_000);

test(
  'an insert that landed but reported a failure is retried with the same token: skipped in the raw table and in every rollup',
  () =>
    ingesting({ maxBatchSize: 1000, maxWaitMs: 50 }, async (stream) => {
      const acc = 'once-retried';
      faults.inserts = 0;
      faults.landThenFail = 4; // the first insert of each kind lands, then fails
      await publish(stream, acc, range(0, 200));
      await drained(stream);
      expect(faults.landThenFail).toBe(0);
      expect(faults.inserts).toBe(8); // each kind inserted twice: the retry is the same insert
      // Not collapsed on merge: never stored twice at all (the raw count without FINAL agrees).
      expect(await num('SELECT count() AS v FROM play_logs WHERE account_id = {a:String}', acc)).toBe(200);
      await expectRollupsEqualRaw(acc, 200);
      expect(await expectQueriesAgree(acc)).toBeGreaterThan(0);
    }),
  60_000,
);

test(
  'a batch redelivered to a new consumer after a crash without a commit is dropped as stored',
  () =>
    // No retry before the "crash".
    ingesting({ maxBatchSize: 1000, maxWaitMs: 50, retryBaseMs: 60_000 }, async (stream, consumer) => {
      const acc = 'once-crashed';
      faults.landThenFail = 4;
      await publish(stream, acc, range(0, 200));
      await until(async () => faults.landThenFail === 0, 30_000, 'every kind inserted once');
      // The consumer dies before it retries or commits; a new one gets the same batches.
      await consumer.crash();
      expect((await stream.lag()).some((l) => l.lag > 0)).toBe(true);
      await consumer.start();
      await drained(stream);
      expect(await num('SELECT count() AS v FROM play_logs WHERE account_id = {a:String}', acc)).toBe(200);
      await expectRollupsEqualRaw(acc, 200);
    }),
  60_000,
);

test(
  'the same instant written in another ISO form is the same record',
  () =>
    ingesting({ maxBatchSize: 1000, maxWaitMs: 20 }, async (stream) => {
      const acc = 'once-forms';
      const at = (timestamp: string) => ({ ...play(acc, 1), timestamp });
      await stream.publish(TOPICS.plays, [{ key: acc, value: [at('2026-05-01T09:00:00Z')] }]);
      await drained(stream);
      await stream.publish(TOPICS.plays, [{ key: acc, value: [at('2026-05-01T09:00:00.000Z'), at('2026-05-01T11:00:00+02:00')] }]);
      await drained(stream);
      expect(await num('SELECT count() AS v FROM play_logs WHERE account_id = {a:String}', acc)).toBe(1);
      expect(await num('SELECT sum(plays) AS v FROM play_rollup_hour WHERE account_id = {a:String}', acc)).toBe(1);
    }),
  60_000,
);

test('records stored raw but missing from the rollups (the insert stopped after the raw part) are completed on redelivery', async () => {
  const stream = await durable(60_000); // no retry before the "crash"
  const acc = 'once-half-landed';
  // A view that fails on this account's inserts: the raw part commits, the rollups' parts do not.
  const raws = ['play_logs', 'ping_logs', 'impressions', 'event_logs'];
  await store.exec('CREATE TABLE IF NOT EXISTS half_landed (id String, f UInt8) ENGINE = MergeTree ORDER BY id');
  for (const raw of raws) {
    await store.exec(`CREATE MATERIALIZED VIEW IF NOT EXISTS zz_half_landed_${raw}_mv TO half_landed AS
SELECT throwIf(account_id = '${acc}', 'the view failed') AS f, id FROM ${raw}`);
  }
  let ingest: Ingest = await startIngest({ stream, analytics, logger, maxBatchSize: 1000, maxWaitMs: 20 });
  const ids = range(0, 200);
  await publish(stream, acc, ids, 100);
  const landed = async () => {
    for (const raw of raws) if ((await num(`SELECT count() AS v FROM ${raw} WHERE account_id = {a:String}`, acc)) !== 200) return false;
    return true;
  };
  await until(landed, 30_000, 'the raw parts');
  // Which of a table's views run before the failing one is the engine's order, not ours (an ALTER
  // of play_logs, migration 010, changed it): whatever part of these inserts reached a rollup is
  // removed, so what follows always starts from records stored raw and missing from every rollup.
  for (const rollup of Object.values(ROLLUPS_OF).flatMap((specs) => specs.map((s) => s.rollup))) {
    await store.exec(`ALTER TABLE ${rollup} DELETE WHERE account_id = {a:String} SETTINGS mutations_sync = 2`, { a: acc });
  }
  const lost = (await totals(acc)).rollups;
  expect([lost.play_rollup_hour, lost.device_rollup_hour, lost.audience_visitors_hour]).toEqual([[0, 0], [0, 0], [0]]);
  // The consumer dies before its retry; the views are fixed; a new consumer gets the batches again.
  await ingest.close();
  for (const raw of raws) await store.exec(`DROP VIEW zz_half_landed_${raw}_mv`);
  ingest = await startIngest({ stream, analytics, logger, maxBatchSize: 1000, maxWaitMs: 20 });
  await until(async () => (await stream.lag()).every((l) => l.lag === 0), 30_000, 'the redelivery');
  await expectRollupsEqualRaw(acc, 200);
  expect(await expectQueriesAgree(acc)).toBeGreaterThan(0);
  // A second redelivery finds nothing missing: the repair adds nothing.
  const before = await totals(acc);
  await publish(stream, acc, ids, 100);
  await drained(stream);
  expect(await totals(acc)).toEqual(before);
  await ingest.close();
  await stream.close();
}, 60_000);

test('the repair knows every rollup the migrations feed: each materialized view, by its source and target, is an entry of ROLLUPS_OF', async () => {
  // A migration that adds a view without an entry here would leave that rollup short after a crash.
  const NAME = '(?:[a-zA-Z0-9_`]+[.])?`?([a-zA-Z0-9_]+)'; // a table's name, without its database
  const views = await store.query<{ src: string; target: string }>(
    `SELECT extract(create_table_query, ' FROM ${NAME}') AS src, extract(create_table_query, ' TO ${NAME}') AS target
FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView'`,
  );
  const fed = views.map((v) => `${v.src} -> ${v.target}`).sort();
  const repaired = Object.entries(ROLLUPS_OF)
    .flatMap(([raw, specs]) => specs.map((s) => `${raw} -> ${s.rollup}`))
    .sort();
  expect(fed.length).toBeGreaterThanOrEqual(12);
  expect(repaired).toEqual(fed);
});

test('the repair completes every rollup (plays, pings, events, audience) from the raw table, and adds nothing when they agree', async () => {
  const acc = 'once-repaired';
  const ids = range(0, 120);
  type Make = (acc: string, i: number) => Record<string, unknown>;
  const kinds: [string, Make][] = [
    ['play_logs', play as unknown as Make],
    ['event_logs', event as unknown as Make],
    ['impressions', impression as unknown as Make],
    ['ping_logs', ping as unknown as Make],
  ];
  for (const [table, make] of kinds)
    await store.insert(
      table,
      ids.map((i) => make(acc, i)),
    );
  await expectRollupsEqualRaw(acc, 120);
  // The rollups lose this account's rows (as if their parts had never been written).
  for (const rollup of Object.keys((await totals(acc)).rollups)) {
    await store.exec(`ALTER TABLE ${rollup} DELETE WHERE account_id = {a:String} SETTINGS mutations_sync = 2`, { a: acc });
  }
  expect((await totals(acc)).rollups.ping_rollup_hour).toEqual([0]);
  for (const [table, make] of kinds)
    await repairRollups(
      store,
      table,
      ids.slice(0, 10).map((i) => make(acc, i)),
    );
  await expectRollupsEqualRaw(acc, 120);
  expect(await expectQueriesAgree(acc)).toBeGreaterThan(0);
  // Agreeing rollups get nothing more.
  for (const [table, make] of kinds)
    await repairRollups(
      store,
      table,
      ids.map((i) => make(acc, i)),
    );
  await expectRollupsEqualRaw(acc, 120);
}, 60_000);

test('the repair counts completed plays only, as the play rollups do (migration 007): skipped and failed attempts stay out', async () => {
  const acc = 'once-repaired-status';
  const ids = range(0, 30);
  const status = (i: number) => (i % 3 === 0 ? 'skipped' : i % 5 === 0 ? 'failed' : 'completed');
  const plays = ids.map((i) => ({ ...play(acc, i), status: status(i) }));
  await store.insert('play_logs', plays);
  const completed = plays.filter((p) => p.status === 'completed').length;
  const counted = () => num('SELECT sum(plays) AS v FROM play_rollup_hour WHERE account_id = {a:String}', acc);
  expect(await counted()).toBe(completed);
  await store.exec('ALTER TABLE play_rollup_hour DELETE WHERE account_id = {a:String} SETTINGS mutations_sync = 2', { a: acc });
  await repairRollups(store, 'play_logs', plays.slice(0, 5));
  expect(await counted()).toBe(completed);
}, 60_000);

test('a backlog beyond the stream memory budget, a whole fleet reporting in the same seconds, drains with small lookups and is stored once', async () => {
  // The 2026-11-24 bench regression: a 2.6M-record backlog did not drain in 600 s, because one
  // lookup bound 50,000 ids and chDB's IN over an array parameter that large runs one row at a time
  // (and the ClickHouse server refuses a URL that long). Every lookup now binds at most LOOKUP_VALUES.
  const stream = createLmdbStream({ path: await mkdtemp(join(dir, 'stream-')), retentionIntervalMs: 0, maxResidentBytes: 1 << 20 });
  const acc = 'once-backlog';
  const n = 60_000;
  const devices = 500;
  const second = Date.UTC(2026, 4, 2, 9);
  const record = (i: number): PlayLogRecord => ({
    ...play(acc, i),
    device_id: `fleet-${i % devices}`,
    // Three stamps for the whole fleet: every device's range overlaps what it stored before.
    timestamp: new Date(second + Math.floor((i * 3) / n) * 1000).toISOString(),
  });
  const held = async () => {
    const messages = [];
    for (let k = 0; k < n; k += 100) messages.push({ key: acc, value: range(k, k + 100).map(record) });
    await stream.publish(TOPICS.plays, messages);
  };
  await held();
  // The backlog is beyond the budget: most of it is read back from the log.
  expect(stream.stats().topics.find((t) => t.topic === TOPICS.plays)?.residentBytes).toBeLessThanOrEqual(1 << 20);

  let widest = 0;
  const watched = intercepted(analytics, {
    query: (sql, params) => {
      for (const v of Object.values(params ?? {})) if (Array.isArray(v)) widest = Math.max(widest, v.length);
      return analytics.query(sql, params);
    },
  });
  // Default batching: up to 5,000 messages per batch, 50,000 records per insert.
  const ingest = await startIngest({ stream, analytics: watched, logger });
  const limit = 120_000; // measured about 3 s on a 2-core machine; before the fix, minutes
  await until(async () => (await stream.lag()).every((l) => l.lag === 0), limit, 'the backlog to drain');
  expect(await num('SELECT count() AS v FROM play_logs WHERE account_id = {a:String}', acc)).toBe(n);

  // The same backlog again (a replay): every record is found stored, in lookups as small.
  await held();
  await until(async () => (await stream.lag()).every((l) => l.lag === 0), limit, 'the replay to drain');
  expect(await num('SELECT count() AS v FROM play_logs WHERE account_id = {a:String}', acc)).toBe(n);
  expect(await num('SELECT sum(plays) AS v FROM play_rollup_hour WHERE account_id = {a:String}', acc)).toBe(n);
  expect(widest).toBeGreaterThan(0);
  expect(widest).toBeLessThanOrEqual(LOOKUP_VALUES);
  await ingest.close();
  await stream.close();
}, 300_000);
