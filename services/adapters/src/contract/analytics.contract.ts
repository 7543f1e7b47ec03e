/**
 * Behaviour every AnalyticsStore adapter must show (chDB embedded, ClickHouse server).
 * Tests run in order against one store: migrate first, the close checks last.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@pylon/kit/errors';
import type { AnalyticsStore } from '@pylon/kit/ports/analytics';
import { listMigrations, runMigrations } from '../analytics/analytics.migrations.js';
import { afterAll, beforeAll, describe, expect, test } from '@pylon/kit/contract/harness';

export interface AnalyticsHarness {
  store: AnalyticsStore;
  /** Closes the current store and opens a new one over the same data. */
  reopen?: () => Promise<AnalyticsStore>;
  /** Closes whatever is still open and removes the data. */
  cleanup(): Promise<void>;
}

const ACC_A = 'acc-a';
const ACC_B = 'acc-b';
const TABLES = ['audit_events', 'event_logs', 'impressions', 'ping_logs', 'play_logs', 'schema_migrations'];

function ping(i: number, over: Partial<Record<string, unknown>> = {}): Record<string, unknown> {
  const minute = String(i % 60).padStart(2, '0');
  const hour = String(10 + Math.floor(i / 60)).padStart(2, '0');
  return {
    id: `ping-${i}`,
    account_id: ACC_A,
    device_id: `dev-${i % 3}`,
    timestamp: `2024-03-05T${hour}:${minute}:00.250Z`,
    cpu_usage: 10 + i,
    memory_usage: 50.5,
    disk_usage: 70.25,
    player_version: '4.2.0',
    ip_address: '10.0.0.1',
    external_ip_address: '203.0.113.7',
    ...over,
  };
}

async function expectAppError(p: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe(code);
    return e as AppError;
  }
  throw new Error(`expected an AppError ${code}, but the call succeeded`);
}

export function analyticsContract(name: string, make: () => Promise<AnalyticsHarness>): void {
  describe(`analytics contract: ${name}`, () => {
    let h: AnalyticsHarness;
    let store: AnalyticsStore;

    beforeAll(async () => {
      h = await make();
      store = h.store;
    });
    afterAll(async () => {
      await h?.cleanup();
    });

    test('migrate applies every numbered file once, then nothing', async () => {
      const files = await listMigrations();
      expect(files.map((f) => f.name)).toContain('001_telemetry');
      expect(await store.migrate()).toEqual(files.map((f) => f.name));
      expect(await store.migrate()).toEqual([]);
      const recorded = await store.query<{ version: number; name: string; applied_at: string }>(
        'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
      );
      expect(recorded.map((r) => r.version)).toEqual(files.map((f) => f.version));
      expect(typeof recorded[0]?.version).toBe('number');
      expect(recorded[0]?.applied_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const tables = await store.query<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name');
      expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(TABLES));
      // 010: the raw tables' timestamps (a sorting-key column) are delta-coded, the type kept.
      const codecs = await store.query<{ table: string; type: string; compression_codec: string }>(
        "SELECT table, type, compression_codec FROM system.columns WHERE database = currentDatabase() AND name = 'timestamp' AND table IN ('play_logs', 'ping_logs', 'event_logs', 'impressions', 'audit_events') ORDER BY table",
      );
      expect(codecs).toEqual(
        ['audit_events', 'event_logs', 'impressions', 'ping_logs', 'play_logs'].map((table) => ({
          table,
          type: "DateTime64(3, 'UTC')",
          compression_codec: 'CODEC(Delta(8), LZ4)',
        })),
      );
    });

    test('a migration number applied under another name is refused, not skipped (a renumbered file would never run)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'pylon-migrations-renamed-'));
      try {
        await store.exec("INSERT INTO schema_migrations (version, name, applied_at) SELECT 999, '999_before', now64(3, 'UTC')");
        await writeFile(join(dir, '999_after.sql'), 'SELECT 1;\n');
        await expect(runMigrations(store, dir)).rejects.toThrow(
          "analytics migration 999 was applied as '999_before' but the file with that number is now '999_after'",
        );
        await writeFile(join(dir, '999_before.sql'), 'SELECT 1;\n');
        await rm(join(dir, '999_after.sql'));
        await expect(runMigrations(store, dir)).resolves.toEqual([]);
      } finally {
        await store.exec('ALTER TABLE schema_migrations DELETE WHERE version = 999 SETTINGS mutations_sync = 2');
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('ping resolves', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    test('insert then query with {name:Type} params (String, DateTime64 range, Array(String))', async () => {
      await store.insert(
        'ping_logs',
        Array.from({ length: 90 }, (_, i) => ping(i)),
      );
      await store.insert('ping_logs', [ping(0, { id: 'b-0', account_id: ACC_B, device_id: 'dev-0' })]);
      await store.insert('ping_logs', []); // no-op

      const rows = await store.query<{ id: string; device_id: string; timestamp: string; cpu_usage: number }>(
        `SELECT id, device_id, timestamp, cpu_usage FROM ping_logs
         WHERE account_id = {account:String}
           AND timestamp >= parseDateTime64BestEffort({from:String}, 3, 'UTC')
           AND timestamp < parseDateTime64BestEffort({to:String}, 3, 'UTC')
           AND has({devices:Array(String)}, device_id)
         ORDER BY timestamp, id`,
        { account: ACC_A, from: '2024-03-05T10:00:00Z', to: '2024-03-05T10:10:00.000Z', devices: ['dev-0', 'dev-1'] },
      );
      // minutes 0..9 minus every third (dev-2)
      expect(rows.map((r) => r.id)).toEqual(['ping-0', 'ping-1', 'ping-3', 'ping-4', 'ping-6', 'ping-7', 'ping-9']);
      expect(rows[0]).toEqual({ id: 'ping-0', device_id: 'dev-0', timestamp: '2024-03-05T10:00:00.250Z', cpu_usage: 10 });
    });

    test('numbers come back as numbers; 64-bit integers beyond 2^53 as exact strings', async () => {
      const [row] = await store.query<Record<string, unknown>>(
        `SELECT count() AS n, sum(toUInt64(1)) AS s, toInt64(-42) AS neg, toUInt16(7) AS small, avg(cpu_usage) AS avg_cpu,
                toUInt64('18446744073709551615') AS big, [toUInt64(1), toUInt64('9007199254740993')] AS arr,
                '12345678901234567890' AS digits_text
         FROM ping_logs WHERE account_id = {account:String}`,
        { account: ACC_A },
      );
      expect(row).toEqual({
        n: 90,
        s: 90,
        neg: -42,
        small: 7,
        avg_cpu: 10 + 89 / 2,
        big: '18446744073709551615',
        arr: [1, '9007199254740993'],
        digits_text: '12345678901234567890',
      });
    });

    test('aggregates by time bucket with toStartOfInterval', async () => {
      const buckets = await store.query<{ bucket: string; pings: number; devices: number; max_cpu: number }>(
        `SELECT toStartOfInterval(timestamp, INTERVAL 15 minute) AS bucket, count() AS pings,
                uniqExact(device_id) AS devices, max(cpu_usage) AS max_cpu
         FROM ping_logs WHERE account_id = {account:String}
         GROUP BY bucket ORDER BY bucket`,
        { account: ACC_A },
      );
      expect(buckets).toHaveLength(6); // 90 minutes from 10:00
      // The bucket is an ISO string; its precision follows the engine's result type (DateTime or DateTime64).
      expect(buckets[0]?.bucket).toMatch(/^2024-03-05T10:00:00(\.000)?Z$/);
      const norm = buckets.map((b) => ({ ...b, bucket: new Date(b.bucket).toISOString() }));
      expect(norm[0]).toEqual({ bucket: '2024-03-05T10:00:00.000Z', pings: 15, devices: 3, max_cpu: 24 });
      expect(norm[5]).toEqual({ bucket: '2024-03-05T11:15:00.000Z', pings: 15, devices: 3, max_cpu: 99 });
      expect(buckets.reduce((n, b) => n + b.pings, 0)).toBe(90);
    });

    test('replayed events (same id) collapse under FINAL', async () => {
      const play = {
        id: 'play-1',
        account_id: ACC_A,
        device_id: 'dev-0',
        file_id: 'file-1',
        file_name: 'promo.mp4',
        timestamp: new Date('2024-04-01T08:00:00.000Z'),
        duration: 15.5,
        type: 'video',
        playlist_id: 'pl-1',
        schedule_id: 'sc-1',
      };
      await store.insert('play_logs', [play]);
      await store.insert('play_logs', [play, { ...play, id: 'play-2', duration: 30 }]);
      await store.insert('play_logs', [play]);
      const [final] = await store.query<{ n: number; total: number }>(
        'SELECT count() AS n, sum(duration) AS total FROM play_logs FINAL WHERE account_id = {account:String}',
        { account: ACC_A },
      );
      expect(final).toEqual({ n: 2, total: 45.5 });
    });

    test('an insert retried under the same deduplication token is skipped, in the raw table and in its rollups', async () => {
      const account = 'acc-token';
      const plays = [1, 2, 3].map((i) => ({
        id: `tok-${i}`,
        account_id: account,
        device_id: 'dev-0',
        file_id: 'file-1',
        file_name: 'promo.mp4',
        timestamp: `2024-04-02T08:00:0${i}.000Z`,
        duration: 10,
        type: 'video',
        playlist_id: '',
        schedule_id: '',
      }));
      const counts = async () =>
        (
          await store.query<{ raw: number; rollup: number }>(
            `SELECT (SELECT count() FROM play_logs WHERE account_id = {a:String}) AS raw,
                    (SELECT sum(plays) FROM play_rollup_minute WHERE account_id = {a:String}) AS rollup`,
            { a: account },
          )
        )[0];
      await store.insert('play_logs', plays, { deduplicationToken: 'retry-1' });
      await store.insert('play_logs', plays, { deduplicationToken: 'retry-1' });
      expect(await counts()).toEqual({ raw: 3, rollup: 3 });
      // Another token is another insert (the raw table collapses it under FINAL; the rollup counts it).
      await store.insert('play_logs', plays.slice(0, 1), { deduplicationToken: 'retry-2' });
      expect(await counts()).toEqual({ raw: 4, rollup: 4 });
      await expectAppError(store.insert('play_logs', plays, { deduplicationToken: "x' SETTINGS y=1" }), 'BAD_USER_INPUT');
    });

    test('other column types round-trip (Nullable, LowCardinality, UInt16, JSON text)', async () => {
      const properties = JSON.stringify({ screen: 'lobby', note: 'line1\nline2 "quoted" \\ ü ✓' });
      await store.insert('event_logs', [
        {
          id: 'ev-1',
          account_id: ACC_A,
          device_id: 'dev-0',
          session_id: 's-1',
          event_name: 'touch',
          timestamp: '2024-03-05T10:00:01.001Z',
          properties,
          latitude: 52.52,
          longitude: 13.405,
        },
        {
          id: 'ev-2',
          account_id: ACC_A,
          device_id: 'dev-0',
          session_id: 's-1',
          event_name: 'touch',
          timestamp: '2024-03-05T10:00:02.002Z',
          properties: '{}',
          latitude: null,
          longitude: null,
        },
      ]);
      const events = await store.query<{ id: string; properties: string; latitude: number | null }>(
        'SELECT id, properties, latitude FROM event_logs WHERE account_id = {account:String} ORDER BY id',
        { account: ACC_A },
      );
      expect(events).toEqual([
        { id: 'ev-1', properties, latitude: 52.52 },
        { id: 'ev-2', properties: '{}', latitude: null },
      ]);

      await store.insert('impressions', [
        {
          id: 'imp-1',
          account_id: ACC_A,
          device_id: 'dev-0',
          file_id: 'file-1',
          timestamp: '2024-03-05T10:00:00Z',
          sensor: 'cam-1',
          dwell_time: 3.5,
          gender: 'female',
          age_range: '25-34',
          visitor_id: 'v-1',
          latitude: null,
          longitude: null,
        },
      ]);
      await store.insert('audit_events', [
        {
          event_id: 'au-1',
          account_id: ACC_A,
          timestamp: '2024-03-05T10:00:00Z',
          event_type: 'login',
          user_id: 'u-1',
          user_name: 'Ada',
          http_method: 'POST',
          controller_name: 'Auth',
          action_name: 'Login',
          ip_address: '10.0.0.2',
          response_code: 200,
          interface: 'rest',
        },
      ]);
      const [imp] = await store.query('SELECT gender, age_range, dwell_time FROM impressions WHERE id = {id:String}', {
        id: 'imp-1',
      });
      expect(imp).toEqual({ gender: 'female', age_range: '25-34', dwell_time: 3.5 });
      const [audit] = await store.query('SELECT response_code, timestamp FROM audit_events WHERE event_id = {id:String}', {
        id: 'au-1',
      });
      expect(audit).toEqual({ response_code: 200, timestamp: '2024-03-05T10:00:00.000Z' });
    });

    test('tenant filter keeps accounts apart', async () => {
      const count = async (account: string) =>
        (await store.query<{ n: number }>('SELECT count() AS n FROM ping_logs WHERE account_id = {account:String}', { account }))[0]?.n;
      expect(await count(ACC_A)).toBe(90);
      expect(await count(ACC_B)).toBe(1);
      const rows = await store.query<{ account_id: string }>('SELECT DISTINCT account_id FROM ping_logs WHERE account_id = {account:String}', {
        account: ACC_B,
      });
      expect(rows).toEqual([{ account_id: ACC_B }]);
    });

    test('an injection attempt in a parameter value is inert', async () => {
      for (const evil of ["acc-a' OR '1'='1", "x'; DROP TABLE ping_logs; --", 'acc-a\\', "acc-a' --\n OR 1=1"]) {
        expect(await store.query('SELECT id FROM ping_logs WHERE account_id = {account:String}', { account: evil })).toEqual([]);
      }
      const [row] = await store.query<{ n: number }>('SELECT count() AS n FROM ping_logs');
      expect(row?.n).toBe(91);
    });

    test('an empty result is []', async () => {
      expect(await store.query('SELECT id FROM ping_logs WHERE account_id = {account:String}', { account: 'nobody' })).toEqual([]);
      expect(await store.query('SELECT 1 AS x WHERE 0')).toEqual([]);
    });

    test('broken SQL and bad parameters reject with AppError, and the store keeps working', async () => {
      const broken = await expectAppError(store.query('SELEC oops FROM nowhere'), 'INTERNAL');
      expect(broken.message).toBe('analytics query failed');
      expect(broken.cause).toBeDefined();
      await expectAppError(store.query('SELECT * FROM no_such_table'), 'INTERNAL');
      await expectAppError(store.exec('CREATE TABLE broken ('), 'INTERNAL');
      await expectAppError(store.insert('ping_logs', [{ id: 'x', not_a_column: 1 }]), 'INTERNAL');
      await expectAppError(store.insert('ping_logs; DROP TABLE ping_logs', [{ id: 'x' }]), 'BAD_USER_INPUT');

      const badValue = await expectAppError(store.query('SELECT {n:UInt32} AS n', { n: 'abc' }), 'BAD_USER_INPUT');
      expect(badValue.details.field).toBe('n');
      await expectAppError(store.query('SELECT {n:UInt32} AS n', { other: 1 }), 'BAD_USER_INPUT');

      expect(await store.query('SELECT {n:UInt32} + 1 AS n', { n: 41 })).toEqual([{ n: 42 }]);
    });

    test('exec runs statements with and without params', async () => {
      await store.exec('CREATE TABLE IF NOT EXISTS contract_scratch (k String, v UInt32) ENGINE = MergeTree ORDER BY k;');
      await store.exec('INSERT INTO contract_scratch SELECT {k:String}, {v:UInt32}', { k: 'a', v: 1 });
      expect(await store.query('SELECT k, v FROM contract_scratch')).toEqual([{ k: 'a', v: 1 }]);
      await store.exec('DROP TABLE contract_scratch');
    });

    test('queryStream yields every row in order, in several chunks, with bound params', async () => {
      await store.exec(
        `INSERT INTO play_logs (id, account_id, device_id, file_id, file_name, timestamp, duration, type, playlist_id, schedule_id)
         SELECT concat('s-', toString(number)), {account:String}, concat('dev-', toString(number % 7)), 'f-1', 'clip.mp4',
                toDateTime64('2024-05-01 00:00:00', 3, 'UTC') + toIntervalSecond(number), number % 10, 'video', '', ''
         FROM numbers(150000)`,
        { account: 'acc-stream' },
      );
      let chunks = 0;
      let n = 0;
      let last = -1;
      let ordered = true;
      for await (const rows of store.queryStream<{ id: string; d: number; big: string }>(
        `SELECT id, toUInt32(substring(id, 3)) AS d, toUInt64('18446744073709551615') AS big FROM play_logs
         WHERE account_id = {account:String} ORDER BY timestamp`,
        { account: 'acc-stream' },
      )) {
        chunks++;
        for (const r of rows) {
          if (r.d !== last + 1) ordered = false;
          last = r.d;
          n++;
        }
        if (chunks === 1) expect(rows[0]).toEqual({ id: 's-0', d: 0, big: '18446744073709551615' });
      }
      expect({ n, ordered, several: chunks > 1 }).toEqual({ n: 150000, ordered: true, several: true });
      // Without params, and an empty result yields nothing.
      const empty: unknown[] = [];
      for await (const rows of store.queryStream('SELECT 1 AS x WHERE 0')) empty.push(...rows);
      expect(empty).toEqual([]);
    });

    test('queryStream: breaking out early releases it; errors reject as AppError; queries and streams run side by side', async () => {
      const sql = 'SELECT number AS n FROM numbers(5000000)';
      const streamA = store.queryStream<{ n: number }>(sql)[Symbol.asyncIterator]();
      const first = await streamA.next();
      expect((first.value as { n: number }[])[0]).toEqual({ n: 0 });
      // A second stream and a query while the first is open (chdb: one cursor per connection).
      let seen = 0;
      for await (const rows of store.queryStream<{ n: number }>('SELECT number AS n FROM numbers(10)')) seen += rows.length;
      expect(seen).toBe(10);
      expect(await store.query('SELECT {n:UInt32} + 1 AS n', { n: 1 })).toEqual([{ n: 2 }]);
      await streamA.return?.(undefined);
      for await (const rows of store.queryStream<{ n: number }>(sql)) {
        expect(rows.length).toBeGreaterThan(0);
        break;
      }
      const consume = async (it: AsyncIterable<unknown[]>) => {
        for await (const rows of it) void rows;
      };
      await expectAppError(consume(store.queryStream('SELEC oops')), 'INTERNAL');
      const bad = await expectAppError(consume(store.queryStream('SELECT {n:UInt32} AS n', { n: 'abc' })), 'BAD_USER_INPUT');
      expect(bad.details.field).toBe('n');
      const ac = new AbortController();
      const aborted = store.queryStream(sql, undefined, { signal: ac.signal })[Symbol.asyncIterator]();
      await aborted.next();
      ac.abort();
      await expect(consume({ [Symbol.asyncIterator]: () => aborted })).rejects.toBeDefined();
      expect(await store.query('SELECT 1 AS x')).toEqual([{ x: 1 }]);
    });

    test('20 concurrent queries all succeed', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? store.query<{ n: number; i: number }>('SELECT count() AS n, {i:UInt32} AS i FROM ping_logs WHERE account_id = {account:String}', {
                account: ACC_A,
                i,
              })
            : store.query<{ n: number; i: number }>(`SELECT count() AS n, ${i} AS i FROM ping_logs`),
        ),
      );
      results.forEach((rows, i) => expect(rows).toEqual([{ n: i % 2 === 0 ? 90 : 91, i }]));
    });

    test('data survives a reopen', async () => {
      if (!h.reopen) {
        console.log(`analytics contract ${name}: no reopen given, persistence not checked`);
        return;
      }
      store = await h.reopen();
      expect(await store.migrate()).toEqual([]);
      const [row] = await store.query<{ n: number }>('SELECT count() AS n FROM ping_logs FINAL');
      expect(row?.n).toBe(91);
    });

    test('close is idempotent and later calls reject as UNAVAILABLE; an open stream is cut, not waited for', async () => {
      // A consumer that took one chunk and never asks again must not hold close() up.
      const open = store.queryStream('SELECT number AS n FROM numbers(5000000)')[Symbol.asyncIterator]();
      await open.next();
      await store.close();
      await expectAppError(
        (async () => {
          while (!(await open.next()).done);
        })(),
        'UNAVAILABLE',
      );
      await store.close();
      await expectAppError(store.query('SELECT 1'), 'UNAVAILABLE');
      await expectAppError(store.ping(), 'UNAVAILABLE');
      await expectAppError(
        (async () => {
          for await (const rows of store.queryStream('SELECT 1')) void rows;
        })(),
        'UNAVAILABLE',
      );
    });
  });
}
