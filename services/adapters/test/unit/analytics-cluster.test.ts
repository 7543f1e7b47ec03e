/**
 * Both renderings of the analytics migrations, as the runner sends them: the single-node form
 * (the files as written: chDB, one ClickHouse server, ClickHouse Cloud) and the cluster form
 * (ON CLUSTER on every schema statement, Replicated engines with a Keeper path of their own table
 * and the replica macro). Structural checks over every statement of every file.
 */
import type { SqlParams } from '@pylon/kit/ports/analytics';
import { runMigrations, listMigrations } from '../../src/analytics/analytics.migrations.js';
import { clusterRenderer } from '../../src/analytics/analytics.cluster.js';
import { splitSqlStatements } from '../../src/analytics/analytics.sql-tokenizer.js';
import { readFile } from 'node:fs/promises';

/** Records what the runner sends; nothing is applied yet, so every file is pending. */
async function rendered(cluster?: string): Promise<string[]> {
  const sent: string[] = [];
  const target = {
    query: async <T>() => [] as T[],
    exec: async (sql: string, _params?: SqlParams) => {
      sent.push(sql);
    },
  };
  await runMigrations(target, undefined, cluster ? { cluster: { cluster } } : {});
  return sent;
}

const code = (s: string) => s.replace(/--[^\n]*/g, '').trim();
const SCHEMA = /^(CREATE|ALTER|DROP|TRUNCATE|RENAME)\b/i;
const MERGE_TREE = /\bENGINE\s*=\s*(\w*)MergeTree\b(\s*\(([^)]*)\))?/gi;

test("single node: the files exactly as written (plus the runner's own records), no ON CLUSTER, no Replicated engine", async () => {
  const sent = await rendered();
  const files = await listMigrations();
  const written: string[] = [];
  for (const f of files) written.push(...splitSqlStatements(await readFile(f.path, 'utf8')));
  const fromFiles = sent.filter((s) => !/schema_migrations/.test(s));
  expect(fromFiles).toEqual(written);
  for (const s of sent) {
    expect(s).not.toMatch(/ON CLUSTER|Replicated\w*MergeTree/);
  }
});

test('cluster: every CREATE/ALTER/DROP/TRUNCATE/RENAME carries ON CLUSTER once; every MergeTree engine is Replicated with its own Keeper path and the replica macro', async () => {
  const sent = await rendered('pylon');
  const schema = sent.map(code).filter((s) => SCHEMA.test(s));
  expect(schema.length).toBeGreaterThan(50);
  for (const s of schema) expect(s.match(/ON CLUSTER pylon\b/g)).toHaveLength(1);
  const paths = new Map<string, string>();
  for (const s of sent.map(code)) {
    for (const m of s.matchAll(MERGE_TREE)) {
      expect(m[1]).toMatch(/^Replicated/);
      const args = m[3] ?? '';
      const table = /^CREATE TABLE (?:IF NOT EXISTS )?(\w+)/.exec(s)?.[1] as string;
      expect(args).toMatch(new RegExp(`^'/clickhouse/tables/\\{shard\\}/\\{database\\}/${table}', '\\{replica\\}'`));
      paths.set(table, args.split(',')[0] as string);
    }
  }
  // Every table has its engine (the `CREATE TABLE b AS a` copies too) and no two share a Keeper path.
  const tables = schema.filter((s) => /^CREATE TABLE/.test(s)).map((s) => /^CREATE TABLE (?:IF NOT EXISTS )?(\w+)/.exec(s)?.[1]);
  expect([...paths.keys()].sort()).toEqual([...new Set(tables)].sort());
  expect(new Set(paths.values()).size).toBe(paths.size);
  expect(paths.has('schema_migrations')).toBe(true);
  // Plain MergeTree's insert deduplication setting becomes the replicated one.
  expect(sent.join('\n')).not.toMatch(/non_replicated_deduplication_window/);
  expect(sent.join('\n')).toMatch(/MODIFY SETTING replicated_deduplication_window = 1000/);
  // Data statements (backfills) are left alone: a replicated table replicates its inserts.
  for (const s of sent.map(code).filter((x) => /^INSERT/i.test(x))) expect(s).not.toMatch(/ON CLUSTER/);
});

test('cluster: the engine arguments and the rest of the clause are kept; a copied table gets its own path', () => {
  const render = clusterRenderer({ cluster: 'c1' });
  expect(render('CREATE TABLE IF NOT EXISTS d (x UInt8, replayed UInt8) ENGINE = ReplacingMergeTree(replayed)\nPARTITION BY x\nORDER BY x')).toBe(
    "CREATE TABLE IF NOT EXISTS d ON CLUSTER c1 (x UInt8, replayed UInt8) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/d', '{replica}', replayed)\nPARTITION BY x\nORDER BY x",
  );
  expect(render('CREATE TABLE IF NOT EXISTS d2 AS d')).toBe(
    "CREATE TABLE IF NOT EXISTS d2 ON CLUSTER c1 AS d ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/d2', '{replica}', replayed)\nPARTITION BY x\nORDER BY x",
  );
  expect(render('CREATE MATERIALIZED VIEW IF NOT EXISTS v TO d AS SELECT 1 AS x')).toBe(
    'CREATE MATERIALIZED VIEW IF NOT EXISTS v ON CLUSTER c1 TO d AS SELECT 1 AS x',
  );
  expect(render('DROP VIEW IF EXISTS v')).toBe('DROP VIEW IF EXISTS v ON CLUSTER c1');
  expect(render('ALTER TABLE d MODIFY TTL toDateTime(x) + INTERVAL 1 DAY')).toBe('ALTER TABLE d ON CLUSTER c1 MODIFY TTL toDateTime(x) + INTERVAL 1 DAY');
  expect(render("CREATE TABLE l (g UInt64) ENGINE = Memory COMMENT 'x'")).toBe("CREATE TABLE l ON CLUSTER c1 (g UInt64) ENGINE = Memory COMMENT 'x'");
  expect(render('INSERT INTO d SELECT 1, 0')).toBe('INSERT INTO d SELECT 1, 0');
  expect(() => render('CREATE TABLE e AS unknown')).toThrow(/engine of 'unknown'/);
  expect(() => clusterRenderer({ cluster: "x'; DROP" })).toThrow(/not a plain identifier/);
  expect(
    clusterRenderer({ cluster: 'c', zooKeeperPath: '/ch/{cluster}/{table}', replica: '{host}' })('CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x'),
  ).toBe("CREATE TABLE t ON CLUSTER c (x UInt8) ENGINE = ReplicatedMergeTree('/ch/{cluster}/t', '{host}') ORDER BY x");
});

test('cluster: files applied earlier are read for their engines, not sent again', async () => {
  const sent: string[] = [];
  const files = await listMigrations();
  const target = {
    // Everything up to 005 applied: 006's `CREATE TABLE audience_visitors_day AS audience_visitors_hour` needs 006's own engine only,
    // 003's copies need 003's: all seen in order.
    query: async <T>() => files.filter((f) => f.version <= 3).map((f) => ({ version: f.version, name: f.name })) as T[],
    exec: async (sql: string) => {
      sent.push(sql);
    },
  };
  await runMigrations(target, undefined, { cluster: { cluster: 'pylon' } });
  expect(sent.some((s) => /CREATE TABLE IF NOT EXISTS play_rollup_hour ON CLUSTER/.test(s))).toBe(false);
  expect(sent.some((s) => /audience_visitors_day ON CLUSTER pylon AS audience_visitors_hour ENGINE = ReplicatedReplacingMergeTree/.test(s))).toBe(true);
});
