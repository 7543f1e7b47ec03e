import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChdbAnalyticsStore } from '../../src/chdb/analytics.chdb.js';
import type { AnalyticsStore } from '@pylon/kit/ports/analytics';
import { analyticsContract } from '../../src/contract/analytics.contract.js';

// chDB binds one data directory per process and jest reuses workers across test files:
// every store opened here is closed in the contract's afterAll (cleanup).
analyticsContract('chdb', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pylon-analytics-'));
  let current: AnalyticsStore = await createChdbAnalyticsStore({ path: dir });
  return {
    store: current,
    async reopen() {
      await current.close();
      current = await createChdbAnalyticsStore({ path: dir });
      return current;
    },
    async cleanup() {
      await current.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

// chDB runs the pending files in one engine call (kit analytics.migrations.ts, ScriptTarget): the
// same outcome as one statement at a time, including when a file fails part-way.
describe('chdb: migrations in one call', () => {
  test('a file failing part-way stays unrecorded (the files before it are), and runs again from its first statement', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pylon-analytics-script-'));
    const migrations = join(dir, 'migrations');
    await mkdir(migrations);
    await writeFile(
      join(migrations, '001_a.sql'),
      '-- first; not a split\nCREATE TABLE IF NOT EXISTS a (x UInt8) ENGINE = MergeTree ORDER BY x; -- trailing note\nINSERT INTO a VALUES (1);\n',
    );
    await writeFile(join(migrations, '002_b.sql'), 'CREATE TABLE IF NOT EXISTS b (x UInt8) ENGINE = MergeTree ORDER BY x;\nSELECT no_such_column FROM b;\n');
    let store = await createChdbAnalyticsStore({ path: join(dir, 'data'), migrationsDir: migrations });
    try {
      await expect(store.migrate()).rejects.toThrow();
      const recorded = async () => (await store.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version')).map((r) => r.name);
      expect(await recorded()).toEqual(['001_a']);
      // 002's first statement ran before the failure; a re-run tolerates it (IF NOT EXISTS).
      expect(await store.query('SELECT x FROM b')).toEqual([]);
      await writeFile(join(migrations, '002_b.sql'), 'CREATE TABLE IF NOT EXISTS b (x UInt8) ENGINE = MergeTree ORDER BY x;\nINSERT INTO b VALUES (2);\n');
      await store.close();
      store = await createChdbAnalyticsStore({ path: join(dir, 'data'), migrationsDir: migrations });
      expect(await store.migrate()).toEqual(['002_b']);
      expect(await recorded()).toEqual(['001_a', '002_b']);
      // ORDER BY after UNION ALL orders only the last SELECT in ClickHouse: order the union as a whole.
      expect(await store.query<{ x: number }>('SELECT x FROM (SELECT x FROM a UNION ALL SELECT x FROM b) ORDER BY x')).toEqual([{ x: 1 }, { x: 2 }]);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
