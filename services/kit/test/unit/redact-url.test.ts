/** Request-log redaction: credentials never reach a log line, however the URL spells them; a line is built only when written. */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createOps, requestLogging } from '../../src/http/ops.js';
import { createLogger, redactUrl } from '../../src/logger.js';

test.each([
  ['/devices?api_key=SECRET1', '/devices?api_key=[Redacted]'],
  ['/devices?api%5Fkey=SECRET1&take=1', '/devices?api%5Fkey=[Redacted]&take=1'],
  ['/graphql?%61pi_key=SECRET1', '/graphql?%61pi_key=[Redacted]'],
  ['/x?API_KEY=SECRET1', '/x?API_KEY=[Redacted]'],
  ['/x?api_key[]=SECRET1', '/x?api_key[]=[Redacted]'],
  ['/x?access_token=SECRET1&token=SECRET1', '/x?access_token=[Redacted]&token=[Redacted]'],
  ['/x?api%ZZkey=SECRET1', '/x?api%ZZkey=[Redacted]'],
  ['/devices/pingdata?registration_key=SECRET1&key=SECRET1', '/devices/pingdata?registration_key=[Redacted]&key=[Redacted]'],
  ['/player/SECRET1/ping?wait=5', '/player/[Redacted]/ping?wait=5'],
  ['/PLAYER/SECRET1/commands/c1/ack', '/PLAYER/[Redacted]/commands/c1/ack'],
  ['/%70layer/SECRET1/snap', '/%70layer/[Redacted]/snap'],
  ['/devices/SECRET1/pingdata', '/devices/[Redacted]/pingdata'],
  ['/devices/SECRET1/SNAP?base64=true', '/devices/[Redacted]/SNAP?base64=true'],
  ['/devices/d-1?take=2', '/devices/d-1?take=2'],
  ['/devices/groups/g-1', '/devices/groups/g-1'],
  ['/player/pairings/SECRET1', '/player/pairings/[Redacted]'],
  ['/player/pairings', '/player/pairings'],
  ['/Player/Pairings/SECRET1?x=1', '/Player/Pairings/[Redacted]?x=1'],
  ['/devices/claim/ABC234', '/devices/claim/[Redacted]'],
  ['/devices/claim', '/devices/claim'],
  // Issue 34, L5: credentials under any parameter name, or none, or in a path segment.
  ['/devices?x=pyl_SECRET1&take=1', '/devices?x=[Redacted]&take=1'],
  ['/devices?x=%70yl_SECRET1', '/devices?x=[Redacted]'],
  ['/devices?pyl_SECRET1', '/devices?[Redacted]'],
  ['/x?hook=whsec_SECRET1', '/x?hook=[Redacted]'],
  ['/x?t=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', '/x?t=[Redacted]'],
  ['/devices/pyl_SECRET1', '/devices/[Redacted]'],
  ['/devices?name=pylon&q=eyJ', '/devices?name=pylon&q=eyJ'],
])('%s', (url, expected) => {
  expect(redactUrl(url)).toBe(expected);
});

describe('request log lines', () => {
  // The request log of an app: `level` decides whether the line is written at all.
  async function logged(level: string): Promise<string[]> {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const app = express();
    app.use(requestLogging(createOps(`redact-${level}`), createLogger({ level, destination })));
    app.post('/player/:key/playlogs', (_req, res) => void res.status(202).end());
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/player/SECRET1/playlogs?token=SECRET2`, { method: 'POST' });
      expect(r.status).toBe(202);
    } finally {
      server.close();
    }
    await new Promise((r) => setImmediate(r));
    return lines;
  }

  test('at info one line per request, credentials redacted; below info none is built', async () => {
    const info = await logged('info');
    expect(info).toHaveLength(1);
    expect(JSON.parse(info[0]!)).toMatchObject({ msg: 'request', method: 'POST', status: 202, url: '/player/[Redacted]/playlogs?token=[Redacted]' });
    expect(info[0]).not.toContain('SECRET');
    expect(await logged('warn')).toEqual([]);
  });
});
