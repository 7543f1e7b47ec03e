/**
 * The all-in-one's start runs the analytics migrations on chDB's threads while the rest is built
 * (all-in-one/backends.ts), and the telemetry consumer starts once they are applied. Readiness must
 * not move earlier for it: when startAllInOne resolves (the listeners are up, /readyz answers) every
 * migration is applied, the consumer runs, and /readyz reports both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@pylon/kit';
import { listMigrations } from '@pylon/adapters/analytics';
import { startAllInOne, type AllInOne } from '../../src/all-in-one.js';
import { allInOneEnv } from '../../src/all-in-one.config.js';
import { openAllInOneBackends } from '../../src/all-in-one/backends.js';

let dir: string;
let app: AllInOne | undefined;

/**
 * The hosts this process sends HTTP requests to from now until `stop()` (an unconfigured
 * @apollo/gateway probes cloud metadata endpoints as it is built, and reports usage to Apollo).
 */
function watchOutbound(): { hosts: string[]; stop: () => void } {
  const hosts: string[] = [];
  const originals = { http: http.request, https: https.request };
  const watch = (mod: typeof http | typeof https, original: typeof http.request) =>
    ((...args: Parameters<typeof http.request>) => {
      const [target, options] = args as [unknown, unknown];
      const url = target instanceof URL ? target : typeof target === 'string' ? new URL(target) : undefined;
      const o = (url ? options : target) as { hostname?: string; host?: string } | undefined;
      hosts.push(url?.hostname ?? o?.hostname ?? o?.host ?? 'localhost');
      return original.apply(mod, args);
    }) as typeof http.request;
  http.request = watch(http, originals.http);
  https.request = watch(https, originals.https);
  return {
    hosts,
    stop: () => {
      http.request = originals.http;
      https.request = originals.https;
    },
  };
}
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-readiness-'));
});
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

test('ready means migrated and consuming, though the stores were handed over mid-migration; the start calls nothing outside this machine', async () => {
  const outbound = watchOutbound();
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
  expect(((await ready.json()) as { checks: Record<string, string> }).checks).toMatchObject({
    analytics: 'ok',
    consumer: 'ok',
    documents: 'ok',
    stream: 'ok',
    oauth: 'ok',
  });
  // Ready includes sign-in: OIDC discovery answers (it answered 503 for a while after /readyz did, issue 35).
  expect((await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).status).toBe(200);
  // The consumer really runs: paused, readiness fails; resumed, it is back.
  await app.telemetry.consumer.pause();
  expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(503);
  await app.telemetry.consumer.resume();
  expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
  outbound.stop();
  // No vendor telemetry, no cloud metadata probe: loopback only.
  expect(outbound.hosts.filter((h) => !['localhost', '127.0.0.1', '::1', '[::1]'].includes(h))).toEqual([]);
}, 60_000);
