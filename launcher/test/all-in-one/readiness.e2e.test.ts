/**
 * The all-in-one's start runs the analytics migrations on chDB's threads while the rest is built
 * (all-in-one/backends.ts), and the telemetry consumer starts once they are applied. Readiness must
 * not move earlier for it: when startAllInOne resolves (the listeners are up, /readyz answers) every
 * migration is applied, the consumer runs, and /readyz reports both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@pylon/kit';
import { listMigrations } from '@pylon/kit/adapters/analytics.migrations';
import { startAllInOne, type AllInOne } from '../../src/all-in-one.js';
import { allInOneEnv } from '../../src/all-in-one.config.js';
import { openAllInOneBackends } from '../../src/all-in-one/backends.js';

let dir: string;
let app: AllInOne | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-readiness-'));
});
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

test('ready means migrated and consuming, though the stores were handed over mid-migration', async () => {
  const env = loadConfig(allInOneEnv, { SIGNAGE_DATA_DIR: dir, PORT: '0', LEGACY_PORT: '0', LOG_LEVEL: 'silent', SIGNAGE_SIMULATOR: 'false' });
  const logger = createLogger({ level: 'silent' });
  const backends = await openAllInOneBackends(env, logger);
  let migrated = false;
  void backends.migrated.then(() => (migrated = true));
  // As `npm start` hands them over: the migrations are still running.
  expect(migrated).toBe(false);
  await expect(backends.checks.analytics!()).rejects.toThrow();
  app = await startAllInOne(env, { logger, backends });
  expect(migrated).toBe(true);
  const applied = await app.analytics.query<{ n: string }>('SELECT count() AS n FROM schema_migrations');
  expect(Number(applied[0]?.n)).toBe((await listMigrations()).length);
  const ready = await fetch(`${app.baseUrl}/readyz`);
  expect(ready.status).toBe(200);
  expect(((await ready.json()) as { checks: Record<string, string> }).checks).toMatchObject({ analytics: 'ok', consumer: 'ok', documents: 'ok', stream: 'ok' });
  // The consumer really runs: paused, readiness fails; resumed, it is back.
  await app.telemetry.consumer.pause();
  expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(503);
  await app.telemetry.consumer.resume();
  expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
}, 60_000);
