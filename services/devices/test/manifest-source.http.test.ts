/**
 * The devices process's link to scheduling (distributed mode) against a scripted scheduling over
 * real HTTP: an answer, a 404 (no such device: null), and the ways it fails (a 5xx, an empty 200,
 * a time limit, a dropped connection), each an UNAVAILABLE the ping can retry whose cause (logged, never
 * answered) says which.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@pylon/kit';
import { testTokens } from '@pylon/kit/testing';
import { createHttpManifestSource } from '../src/adapters/manifest-source.http.js';

const device = { accountId: 'acc-1', id: 'dev-1', name: 'Lobby', groupId: null, tags: [] };
let server: Server;
let url: string;
let script: (path: string, res: import('node:http').ServerResponse) => void;

beforeAll(async () => {
  server = createServer((req, res) => script(req.url ?? '', res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const source = () => createHttpManifestSource({ schedulingUrl: url, tokens: testTokens, timeoutMs: 300 });

async function failure(p: Promise<unknown>): Promise<{ code: string; cause: string }> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AppError);
  return { code: (e as AppError).code, cause: String(((e as Error).cause as Error | undefined)?.message) };
}

test('an answer, and a 404 as null', async () => {
  script = (path, res) =>
    path.endsWith('/version') ? res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"v1"}') : res.writeHead(404).end('{}');
  expect(await source().version(device)).toBe('v1');
  expect(await source().manifest(device)).toBeNull();
});

test('a 5xx, an empty answer, a time limit and a dropped connection: UNAVAILABLE, with what failed as its cause', async () => {
  script = (_path, res) => res.writeHead(503).end('{}');
  expect(await failure(source().version(device))).toEqual({ code: 'UNAVAILABLE', cause: 'scheduling answered 503' });

  script = (_path, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('null');
  expect(await failure(source().version(device))).toEqual({ code: 'UNAVAILABLE', cause: 'scheduling answered 200 without a body' });

  script = () => undefined; // never answers
  expect(await failure(source().version(device))).toEqual({ code: 'UNAVAILABLE', cause: expect.stringMatching(/timeout|aborted/i) });

  script = (_path, res) => res.socket?.destroy();
  const dropped = await failure(source().manifest(device));
  expect(dropped.code).toBe('UNAVAILABLE');
  expect(dropped.cause).toMatch(/fetch failed|socket|closed/i);
});
