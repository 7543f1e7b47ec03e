/**
 * createBackends with deferMigrations (the all-in-one's start): the stores are handed over while the
 * analytics migrations still run; the analytics readiness check fails until they are applied, and
 * every call on the analytics store waits for them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@pylon/kit';
import { listMigrations } from '@pylon/adapters/analytics';
import { backendEnv, backendRules, createBackends, type Backends } from '../src/backends.js';

const schema = backendEnv.check(...backendRules);
let dir: string;
let backends: Backends | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-deferred-migrations-'));
});
afterEach(async () => {
  await backends?.close();
  backends = undefined;
  await rm(dir, { recursive: true, force: true });
});

const appliedCount = async (b: Backends) => Number((await b.analytics!.query<{ n: string }>('SELECT count() AS n FROM schema_migrations'))[0]?.n ?? 0);

test('deferred: handed over before the migrations are applied; analytics is not ready until they are', async () => {
  backends = await createBackends(loadConfig(schema, { SIGNAGE_DATA_DIR: dir }), ['documents', 'analytics'], 'test', { deferMigrations: true });
  // Tens of DDL statements on a new data dir: not done when the stores are handed over.
  await expect(backends.checks.analytics!()).rejects.toThrow(/migrations are still running/);
  await backends.migrated;
  await expect(backends.checks.analytics!()).resolves.toBeUndefined();
  expect(await appliedCount(backends)).toBe((await listMigrations()).length);
});

test('deferred: a query sent while the migrations run waits for them and reads the migrated tables', async () => {
  backends = await createBackends(loadConfig(schema, { SIGNAGE_DATA_DIR: dir }), ['documents', 'analytics'], 'test', { deferMigrations: true });
  await expect(backends.checks.analytics!()).rejects.toThrow(/migrations are still running/);
  // Sent at once, before `migrated`: without the wait, schema_migrations and play_logs would not exist yet.
  const [applied, plays] = await Promise.all([appliedCount(backends), backends.analytics!.query<{ n: string }>('SELECT count() AS n FROM play_logs')]);
  expect(applied).toBe((await listMigrations()).length);
  expect(Number(plays[0]?.n)).toBe(0);
});

test('not deferred (every other process): migrated before createBackends resolves', async () => {
  backends = await createBackends(loadConfig(schema, { SIGNAGE_DATA_DIR: dir }), ['documents', 'analytics'], 'test');
  await expect(backends.checks.analytics!()).resolves.toBeUndefined();
  expect(await appliedCount(backends)).toBe((await listMigrations()).length);
});

test('a migration failure rejects `migrated` (the start fails) and leaves analytics not ready', async () => {
  const env = loadConfig(schema, { SIGNAGE_DATA_DIR: dir });
  backends = await createBackends(env, ['documents', 'analytics'], 'test', { deferMigrations: true });
  await backends.migrated;
  await backends.close();
  // Closed store: a second run cannot apply anything; its failure surfaces through `migrated`.
  backends = await createBackends(env, ['documents', 'analytics'], 'test', { deferMigrations: true });
  const store = backends.analytics!;
  await store.close();
  await expect(backends.migrated).rejects.toThrow();
  await expect(backends.checks.analytics!()).rejects.toThrow();
});
