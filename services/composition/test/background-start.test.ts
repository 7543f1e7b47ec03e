/**
 * A role that starts before its backends answer (background-start.ts, kit retryUntil): live at once,
 * not ready while it waits (naming the backend), serving its app once an attempt succeeds, without a
 * restart; the retries back off to a cap. And the audit spool's default home (audit-sink.ts).
 * The processes started from dist/ in the image's sandbox: test/deploy/roles-sandbox.e2e.test.ts.
 */
import express from 'express';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { backoffMs, createLogger, createOps, loadConfig, retryUntil } from '@pylon/kit';
import { auditSpoolDir } from '../src/audit-sink.js';
import { startInBackground } from '../src/background-start.js';
import { tagBackend } from '../src/backends.js';
import { facadeProcessEnv } from '../src/facade-process.js';

const freePort = () =>
  new Promise<number>((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });

test('the audit spool lives under SIGNAGE_DATA_DIR (the image: /data), never under the working directory', () => {
  const env = (extra: Record<string, string>) => loadConfig(facadeProcessEnv(4001), { GATEWAY_URL: 'http://gateway:4000', ...extra });
  expect(auditSpoolDir(env({ SIGNAGE_DATA_DIR: '/data' }))).toBe('/data/spool');
  expect(auditSpoolDir(env({ SIGNAGE_DATA_DIR: '/data', AUDIT_SPOOL_DIR: '/spool' }))).toBe('/spool');
  // Local runs keep the repository's ./data, as the embedded backends do.
  expect(auditSpoolDir(env({}))).toBe(join(resolve('./data'), 'spool'));
});

test('back-off doubles from the first wait up to the cap, jittered within its upper half', () => {
  expect([1, 2, 3, 4, 10, 100].map((n) => backoffMs(n, 500, 15_000, () => 1))).toEqual([500, 1000, 2000, 4000, 15_000, 15_000]);
  expect(backoffMs(10, 500, 15_000, () => 0)).toBe(7500);
});

test('retryUntil stops at once when aborted while it waits', async () => {
  const stop = new AbortController();
  let attempts = 0;
  const started = performance.now();
  const result = retryUntil(
    async () => {
      attempts++;
      throw new Error('down');
    },
    { signal: stop.signal, firstDelayMs: 60_000, onFailure: () => setTimeout(() => stop.abort(), 10) },
  );
  expect(await result).toBeUndefined();
  expect(attempts).toBe(1);
  expect(performance.now() - started).toBeLessThan(5_000);
});

test('live at once, not ready naming the missing backend while attempts fail, then serving without a restart', async () => {
  const port = await freePort();
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', destination: { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream });
  let attempts = 0;
  let backendUp = false;
  const app = express().get('/readyz', (_req, res) => void res.json({ status: 'ready' }));
  const done = startInBackground({
    logger,
    ops: createOps('test'),
    port,
    host: '127.0.0.1',
    metrics: {},
    firstDelayMs: 20,
    maxDelayMs: 50,
    attempt: async () => {
      attempts++;
      if (!backendUp) {
        const e = new Error('the document store is unavailable, retry later');
        tagBackend(e, 'documents');
        throw e;
      }
      return { app, closers: [], label: 'serving' };
    },
  });
  const get = async (path: string) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  // Listening before the first attempt has failed (the port is bound first).
  while (attempts < 2) await new Promise((r) => setTimeout(r, 10));
  expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'not ready', checks: { starting: 'unavailable', documents: 'unavailable' } } });
  expect(await get('/graphql')).toEqual({ status: 503, body: { error: { code: 'UNAVAILABLE', message: 'starting: waiting for documents; retry later' } } });
  backendUp = true;
  const server = await done;
  try {
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    expect(lines.join('')).toMatch(/cannot start yet: documents unavailable; retrying/);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
