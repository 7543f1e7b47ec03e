import type { AnalyticsStore } from '@pylon/kit';
import { policyAnswers, subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchChdbStore } from '@pylon/adapters/chdb';
import { playRow } from './fixtures/telemetry-rows.js';
import { createAnalyticsSubgraph } from '../src/app.js';

const principal = testPrincipal;

// chDB binds one data directory per process and jest reuses workers: the store is closed in afterAll.
let store: AnalyticsStore;
let sg: ReturnType<typeof createAnalyticsSubgraph>;

const run = subgraphRunner(() => sg, principal('acc-a'));

const PLAY = `query($s: String!, $e: String!, $d: [String!], $f: [String!], $l: Int) {
  playLogs(startDate: $s, endDate: $e, deviceId: $d, fileId: $f, limit: $l) { id timestamp deviceId fileId fileName duration type } }`;
const PING = `query($s: String!, $e: String!, $d: [String!], $l: Int) {
  pingLogs(startDate: $s, endDate: $e, deviceId: $d, limit: $l) { id timestamp deviceId cpuUsage memoryUsage diskUsage ipAddress externalIpAddress } }`;

async function playIds(vars: Record<string, unknown>, who = principal('acc-a')): Promise<string[]> {
  const r = await run(PLAY, vars, who);
  expect(r.errors).toBeUndefined();
  return (r.data as { playLogs: { id: string }[] }).playLogs.map((p) => p.id);
}

const play = (id: string, device: string, timestamp: string, account = 'acc-a') =>
  playRow({ id, account_id: account, device_id: device, file_id: `f-${id}`, file_name: `${id}.mp4`, timestamp, duration: 12.5, playlist_id: 'p1' });

beforeAll(async () => {
  store = await createScratchChdbStore('pylon-analytics-sg-');
  await store.migrate();
  sg = createAnalyticsSubgraph({ analytics: store, tokens: testTokens });
  const plays = [
    play('pl1', 'd1', '2024-03-04T23:59:59.999Z'),
    play('pl2', 'd1', '2024-03-05T00:00:00.000Z'),
    play('pl3', 'd2', '2024-03-05T10:00:00.250Z'),
    play('pl4', 'd1', '2024-03-05T23:59:59.500Z'),
    play('pl5', 'd2', '2024-03-06T00:00:00.000Z'),
    play('pl9', 'd1', '2024-03-05T12:00:00.000Z', 'acc-b'),
  ];
  await store.insert('play_logs', plays);
  // A replayed event lands in another part; FINAL shows it once.
  await store.insert('play_logs', [plays[2]!]);
  await store.insert('ping_logs', [
    {
      id: 'pg1',
      account_id: 'acc-a',
      device_id: 'd1',
      timestamp: '2024-03-05T08:30:15.900Z',
      cpu_usage: 12.5,
      memory_usage: 40,
      disk_usage: 70.25,
      player_version: '4.2',
      ip_address: '10.0.0.5',
      external_ip_address: '203.0.113.7',
    },
    {
      id: 'pg2',
      account_id: 'acc-a',
      device_id: 'd2',
      timestamp: '2024-03-05T08:31:00.000Z',
      cpu_usage: 99,
      memory_usage: 80,
      disk_usage: 10,
      player_version: '4.2',
      ip_address: '',
      external_ip_address: '',
    },
    {
      id: 'pg9',
      account_id: 'acc-b',
      device_id: 'd1',
      timestamp: '2024-03-05T08:30:00.000Z',
      cpu_usage: 1,
      memory_usage: 1,
      disk_usage: 1,
      player_version: '4.2',
      ip_address: '10.9.9.9',
      external_ip_address: '198.51.100.1',
    },
  ]);
});

afterAll(() => store?.close());

test('play logs of a day, oldest first, with seconds-precision timestamps', async () => {
  const r = await run(PLAY, { s: '2024-03-05', e: '2024-03-05' });
  expect(r.errors).toBeUndefined();
  const logs = (r.data as { playLogs: Record<string, unknown>[] }).playLogs;
  expect(logs.map((l) => l.id)).toEqual(['pl2', 'pl3', 'pl4']);
  expect(logs[1]).toEqual({
    id: 'pl3',
    timestamp: '2024-03-05T10:00:00Z',
    deviceId: 'd2',
    fileId: 'f-pl3',
    fileName: 'pl3.mp4',
    duration: 12.5,
    type: 'VIDEO',
  });
});

test('date-times bound the range inclusively, in any zone', async () => {
  expect(await playIds({ s: '2024-03-05T00:00:00Z', e: '2024-03-05T10:00:00.250Z' })).toEqual(['pl2', 'pl3']);
  expect(await playIds({ s: '2024-03-05T12:00:00+02:00', e: '2024-03-06T00:00:00Z' })).toEqual(['pl3', 'pl4', 'pl5']);
  // Without a zone a date-time is UTC, whatever the server's time zone.
  expect(await playIds({ s: '2024-03-04T23:59:59.999', e: '2024-03-05T00:00' })).toEqual(['pl1', 'pl2']);
});

test('deviceId and limit', async () => {
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', d: ['d2'] })).toEqual(['pl3', 'pl5']);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', d: ['d1', 'd2'], l: 2 })).toEqual(['pl1', 'pl2']);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', d: ["d1' OR 1=1 --"] })).toEqual([]);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', l: 0 })).toEqual([]);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', l: 10_000 })).toHaveLength(5);
  const big = await run(PLAY, { s: '2024-03-01', e: '2024-03-31', l: 10_001 });
  expect(big.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
});

test('fileId keeps the given files only, within the caller’s account', async () => {
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', f: ['f-pl3'] })).toEqual(['pl3']);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', f: ['f-pl5', 'f-pl1'] })).toEqual(['pl1', 'pl5']);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', f: ['f-pl3', 'f-pl4'], d: ['d1'] })).toEqual(['pl4']);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', f: [] })).toHaveLength(5);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', f: ["f-pl1' OR 1=1 --"] })).toEqual([]);
  // Another account's file: nothing, and that account still sees its own play.
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', f: ['f-pl9'] })).toEqual([]);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31', f: ['f-pl9'] }, principal('acc-b'))).toEqual(['pl9']);
});

test('invalid dates and a range that ends before it starts are refused, naming the argument', async () => {
  const cases: [string, string, string][] = [
    ['yesterday', '2024-03-05', 'startDate'],
    ['2024-02-30', '2024-03-05', 'startDate'],
    ['0050-01-01', '2024-03-05', 'startDate'],
    ['2024-03-01', '2024-13-01', 'endDate'],
    ['2024-03-01', '2024-03-05T25:00:00Z', 'endDate'],
    ['2024-03-01', '03/05/2024', 'endDate'],
    ['2024-03-06', '2024-03-05', 'endDate'],
    ['2024-03-05T10:00:00Z', '2024-03-05T09:59:59Z', 'endDate'],
  ];
  for (const [s, e, field] of cases) {
    for (const query of [PLAY, PING]) {
      const r = await run(query, { s, e });
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(r.errors?.[0]?.message).toContain(field);
    }
  }
});

test('ping logs with their health figures; empty addresses are null', async () => {
  const r = await run(PING, { s: '2024-03-05', e: '2024-03-05' });
  expect(r.errors).toBeUndefined();
  expect((r.data as { pingLogs: unknown[] }).pingLogs).toEqual([
    {
      id: 'pg1',
      timestamp: '2024-03-05T08:30:15Z',
      deviceId: 'd1',
      cpuUsage: 12.5,
      memoryUsage: 40,
      diskUsage: 70.25,
      ipAddress: '10.0.0.5',
      externalIpAddress: '203.0.113.7',
    },
    { id: 'pg2', timestamp: '2024-03-05T08:31:00Z', deviceId: 'd2', cpuUsage: 99, memoryUsage: 80, diskUsage: 10, ipAddress: null, externalIpAddress: null },
  ]);
  const d2 = await run(PING, { s: '2024-03-05', e: '2024-03-05', d: ['d2'], l: 1 });
  expect((d2.data as { pingLogs: { id: string }[] }).pingLogs.map((p) => p.id)).toEqual(['pg2']);
});

test('a ping shown in whole seconds is found by that second as both ends (issue 35: both ends included at the shown precision)', async () => {
  // pg1 is stored at 08:30:15.900 and shown as 08:30:15Z.
  const shown = await run(PING, { s: '2024-03-05T08:30:15Z', e: '2024-03-05T08:30:15Z' });
  expect((shown.data as { pingLogs: { id: string; timestamp: string }[] }).pingLogs).toEqual([
    expect.objectContaining({ id: 'pg1', timestamp: '2024-03-05T08:30:15Z' }),
  ]);
  // A minute written HH:MM covers that minute; a fraction is as precise as written.
  const minute = await run(PING, { s: '2024-03-05T08:30', e: '2024-03-05T08:30' });
  expect((minute.data as { pingLogs: { id: string }[] }).pingLogs.map((p) => p.id)).toEqual(['pg1']);
  const tenth = await run(PING, { s: '2024-03-05T08:30:15.8Z', e: '2024-03-05T08:30:15.8Z' });
  expect((tenth.data as { pingLogs: unknown[] }).pingLogs).toEqual([]);
  expect(await playIds({ s: '2024-03-05T10:00:00Z', e: '2024-03-05T10:00:00Z' })).toEqual(['pl3']);
});

test('every query is scoped to the caller’s account', async () => {
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31' }, principal('acc-b'))).toEqual(['pl9']);
  expect(await playIds({ s: '2024-03-01', e: '2024-03-31' }, principal('acc-none'))).toEqual([]);
  const pings = await run(PING, { s: '2024-03-01', e: '2024-03-31', d: ['d1'] }, principal('acc-b'));
  expect((pings.data as { pingLogs: { id: string }[] }).pingLogs.map((p) => p.id)).toEqual(['pg9']);
});

test('Analytics_View is required', async () => {
  expect(await policyAnswers(run, 'Analytics_View', [PLAY, PING], { s: '2024-03-01', e: '2024-03-31' })).toEqual({
    without: ['FORBIDDEN', 'FORBIDDEN'],
    alone: [true, true],
  });
});
