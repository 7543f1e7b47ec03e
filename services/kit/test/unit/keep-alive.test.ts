/**
 * A kept-alive connection outlives the clients' own idle limits (KEEP_ALIVE_MS): with Node's 5 s
 * default the server closed it first, and a client reusing it at that moment (undici keeps idle
 * connections 4 s, longer under a loaded event loop) got a reset on a request the server never saw.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { closeHttpServer } from '../../src/index.js';
import { listenHttp } from '../../src/serving.js';

test('an idle kept-alive connection is still open, and answers, after 6 s', async () => {
  const app = express();
  app.get('/ok', (_req, res) => void res.send('ok'));
  const server = await listenHttp(app, 0, '127.0.0.1');
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  let closedAt = 0;
  socket.on('close', () => (closedAt = Date.now()));
  let received = '';
  socket.on('data', (b) => (received += b.toString()));
  const answered = async (n: number) => {
    while ((received.match(/\r\n\r\nok/g) ?? []).length < n && !closedAt) await new Promise((r) => setTimeout(r, 20));
  };
  try {
    socket.write('GET /ok HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await answered(1);
    const idleFrom = Date.now();
    await new Promise((r) => setTimeout(r, 6_000));
    expect(closedAt ? closedAt - idleFrom : null).toBeNull();
    socket.write('GET /ok HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await answered(2);
    expect((received.match(/HTTP\/1.1 200/g) ?? []).length).toBe(2);
  } finally {
    socket.destroy();
    await closeHttpServer(server);
  }
}, 30_000);
