/** A shutdown lets requests in flight finish, but not for ever (kit closeHttpServer). */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer } from '../../src/http/close-server.js';

/** A server whose `/slow` answers after `ms` and whose `/never` never answers; resolves once listening. */
async function serve(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/never') return; // a reader that never finishes, as a paused <video> download
    setTimeout(() => res.end('done'), 300);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/** Sends GET `path`; resolves with the body, or 'closed' when the server dropped the connection. */
function get(server: Server, path: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', () => resolve('closed'));
    req.end();
  });
}

/** Until the server has `n` requests in flight (the test controls nothing else). */
async function inFlight(server: Server, n: number): Promise<void> {
  for (;;) {
    const count = await new Promise<number>((r) => server.getConnections((_, c) => r(c)));
    if (count >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

test.each([
  ['a request in flight finishes before the server closes', '/slow', 60_000, 'done'],
  ['a request that never ends is cut after the drain period, and the server closes', '/never', 100, 'closed'],
] as const)('%s', async (_title, path, drainMs, expected) => {
  const server = await serve();
  const answer = get(server, path);
  await inFlight(server, 1);
  await closeHttpServer(server, drainMs);
  expect(await answer).toBe(expected);
  expect(server.listening).toBe(false);
});
