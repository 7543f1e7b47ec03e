/** Raw-table retention from the settings: TTLs set by the migration runner on chDB; expired rows go on OPTIMIZE FINAL. */
import type { AnalyticsStore } from '@pylon/kit';
import { applyRetention, currentTtl } from '@pylon/adapters/analytics';
import { createScratchChdbStore } from '@pylon/adapters/chdb';
import { retentionFromEnv, runAnalyticsMigrations } from '../src/analytics-migrations.js';
import { backendEnv } from '../src/backends.js';
import { pingRow, playRow } from '../../analytics/test/fixtures/telemetry-rows.js';

let store: AnalyticsStore;
beforeAll(async () => {
  store = await createScratchChdbStore('pylon-analytics-retention-');
});
afterAll(() => store?.close());

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const ttls = async () =>
  Object.fromEntries(
    (
      await store.query<{ name: string; engine_full: string }>(
        "SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND name IN ('play_logs', 'ping_logs', 'event_logs', 'impressions', 'audit_events')",
      )
    ).map((r) => [r.name, currentTtl(r.engine_full)]),
  );
const ids = async (table: string) => (await store.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id);

test('settings: ANALYTICS_RAW_TTL_DAYS for every family, per-family overrides, bad values refused', () => {
  expect(retentionFromEnv(backendEnv.parse({}))).toEqual({ play: 0, ping: 0, event: 0, impression: 0, audit: 0 });
  expect(retentionFromEnv(backendEnv.parse({ ANALYTICS_RAW_TTL_DAYS: '90', ANALYTICS_PING_TTL_DAYS: '30', ANALYTICS_AUDIT_TTL_DAYS: '0' }))).toEqual({
    play: 90,
    ping: 30,
    event: 90,
    impression: 90,
    audit: 0,
  });
  for (const bad of [
    { ANALYTICS_RAW_TTL_DAYS: '-1' },
    { ANALYTICS_PLAY_TTL_DAYS: '1.5' },
    { ANALYTICS_EVENT_TTL_DAYS: 'forever' },
    { ANALYTICS_RAW_TTL_DAYS: '40000' },
  ]) {
    const r = backendEnv.safeParse(bad);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual([Object.keys(bad)[0]]);
  }
});

test('the runner sets each table TTL from the settings; rows older than it disappear on OPTIMIZE FINAL', async () => {
  await store.migrate();
  const play = (id: string, timestamp: string) => playRow({ id, account_id: 'acc', device_id: 'd', file_id: 'f', timestamp, duration: 10 });
  const ping = (id: string, timestamp: string) =>
    pingRow({ id, account_id: 'acc', device_id: 'd', timestamp, cpu_usage: 1, memory_usage: 1, disk_usage: 1, player_version: '' });
  await store.insert('play_logs', [play('old', ago(40)), play('edge', ago(29)), play('new', ago(1))]);
  await store.insert('ping_logs', [ping('old', ago(400)), ping('new', ago(1))]);
  expect(await ttls()).toEqual({ play_logs: null, ping_logs: null, event_logs: null, impressions: null, audit_events: null });

  const retention = retentionFromEnv(backendEnv.parse({ ANALYTICS_PLAY_TTL_DAYS: '30', ANALYTICS_AUDIT_TTL_DAYS: '7' }));
  await runAnalyticsMigrations({ analytics: store, retention });
  expect(await ttls()).toEqual({
    play_logs: 'toDateTime(timestamp) + toIntervalDay(30)',
    ping_logs: null,
    event_logs: null,
    impressions: null,
    audit_events: 'toDateTime(timestamp) + toIntervalDay(7)',
  });
  await store.exec('OPTIMIZE TABLE play_logs FINAL');
  await store.exec('OPTIMIZE TABLE ping_logs FINAL');
  expect(await ids('play_logs')).toEqual(['edge', 'new']);
  expect(await ids('ping_logs')).toEqual(['new', 'old']); // keep forever
  // The rollups keep the expired plays' history.
  expect((await store.query<{ n: number }>('SELECT sum(plays) AS n FROM play_rollup_day'))[0]!.n).toBe(3);

  // Same settings again: nothing to change (no part is rewritten).
  expect(await applyRetention(store, retention)).toEqual([]);
  // Back to "keep forever" for plays; a shorter TTL for pings.
  expect(await applyRetention(store, { play: 0, ping: 100 })).toEqual(['play_logs: none', 'ping_logs: toDateTime(timestamp) + toIntervalDay(100)']);
  expect((await ttls()).play_logs).toBeNull();
  await store.exec('OPTIMIZE TABLE ping_logs FINAL');
  expect(await ids('ping_logs')).toEqual(['new']);
});
