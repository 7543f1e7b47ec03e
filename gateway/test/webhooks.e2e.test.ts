/**
 * Push events end to end through `npm start`'s composition: a REST device registration is stored,
 * its device.registered event goes through the durable stream to the in-process delivery worker,
 * which signs it (Standard Webhooks; verified with the `standardwebhooks` package) and posts it to a
 * loopback receiver (allow-listed by WEBHOOK_ALLOW_LIST: the outbound rules refuse loopback
 * otherwise). REST /webhooks CRUD and the delivery log; bad input names the field; the secret is
 * only in the create answer. Waits poll with a 60 s limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { PushEvent } from '@pylon/kit';
import { until } from '@pylon/kit/testing';
import { startHarness, type Harness } from './harness.js';

const LIMIT = 90_000;
let h: Harness;
let server: Server;
let receiver: string;
const received: { at: number; headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ at: Date.now(), headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  h = await startHarness({ WEBHOOK_ALLOW_LIST: '127.0.0.1', WEBHOOK_POLL_MS: '50' });
}, LIMIT);
afterAll(async () => {
  await h?.stop();
  await new Promise((r) => server.close(r));
});

const rest = (path: string, init: RequestInit = {}) =>
  fetch(`${h.baseUrl}${path}`, {
    ...init,
    headers: { 'x-service-apikey': h.key, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });

test(
  'REST create (secret once), a device registration delivered signed, the log, change and delete',
  async () => {
    const bad = await rest('/webhooks', { method: 'POST', body: JSON.stringify({ url: 'gopher://x' }) });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('url');

    const created = await rest('/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: receiver, event_types: ['device.registered'], description: 'e2e' }),
    });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as { id: string; secret: string; url: string; enabled: boolean; event_types: string[] };
    expect(endpoint).toMatchObject({ url: receiver, enabled: true, event_types: ['device.registered'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const listed = await (await rest('/webhooks')).text();
    expect(listed).toContain(endpoint.id);
    expect(listed).not.toContain('whsec_');

    const t0 = Date.now();
    const device = (await (await rest('/devices', { method: 'POST', body: JSON.stringify({ name: 'Webhook e2e screen' }) })).json()) as { id: string };
    const got = await until('the device.registered delivery', () =>
      received.find((r) => (JSON.parse(r.body) as PushEvent).type === 'device.registered' && r.body.includes(device.id)),
    );
    const event = new Webhook(endpoint.secret).verify(got.body, got.headers) as PushEvent;
    expect(event).toMatchObject({ type: 'device.registered', data: { device_id: device.id, name: 'Webhook e2e screen' } });
    expect(got.at - t0).toBeLessThan(10_000);

    const log = await until('the SUCCEEDED log entry', async () => {
      const rows = (await (await rest(`/webhooks/${endpoint.id}/deliveries`)).json()) as {
        event_id: string;
        status: string;
        attempts: { status_code: number }[];
      }[];
      return rows.find((r) => r.event_id === event.id && r.status === 'SUCCEEDED');
    });
    expect(log.attempts).toEqual([expect.objectContaining({ status_code: 204 })]);

    const put = await rest(`/webhooks/${endpoint.id}`, { method: 'PUT', body: JSON.stringify({ enabled: false }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { enabled: boolean }).enabled).toBe(false);
    const badPut = await rest(`/webhooks/${endpoint.id}`, { method: 'PUT', body: JSON.stringify({ event_types: ['no.such'] }) });
    expect(badPut.status).toBe(400);
    expect((await rest(`/webhooks/${endpoint.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await rest(`/webhooks/${endpoint.id}`)).status).toBe(404);
  },
  LIMIT,
);
