/**
 * Push events end to end through `npm start`'s composition: a REST device registration is stored,
 * its device.registered event goes through the durable stream to the in-process delivery worker,
 * which signs it (Standard Webhooks; verified with the `standardwebhooks` package) and posts it to a
 * loopback receiver (allow-listed by WEBHOOK_ALLOW_LIST: the outbound rules refuse loopback
 * otherwise). REST /webhooks CRUD and the delivery log; bad input names the field; the secret is
 * only in the create answer; the REST actions (test event, rotate-secret, redeliver); a dead
 * endpoint disabled after the failure window opens an alert; content expiry's events (swept every
 * second here) are delivered and open a "Content runs empty" alert. Waits poll with a 60 s limit.
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
  // Retries after 200-400 ms and a 1 s failure window: a dead endpoint is disabled within seconds.
  h = await startHarness({
    WEBHOOK_ALLOW_LIST: '127.0.0.1',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_RETRY_BASE_MS: '200',
    WEBHOOK_RETRY_MAX_DELAY_MS: '400',
    WEBHOOK_DISABLE_AFTER_SECONDS: '1',
    CONTENT_EXPIRY_SWEEP_SECONDS: '1',
  });
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
        id: string;
        event_id: string;
        status: string;
        attempts: { status_code: number }[];
      }[];
      return rows.find((r) => r.event_id === event.id && r.status === 'SUCCEEDED');
    });
    expect(log.attempts).toEqual([expect.objectContaining({ status_code: 204 })]);
    // One delivery by id (docs/contributing.md's example endpoint): REST and GraphQL answer the same
    // record; another endpoint's path, or an unknown id, is 404 / null.
    const one = await rest(`/webhooks/${endpoint.id}/deliveries/${log.id}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(log);
    expect((await rest(`/webhooks/no-such-endpoint/deliveries/${log.id}`)).status).toBe(404);
    const gql = await h.gql('query($e: String!, $id: String!) { webhookDelivery(endpointId: $e, id: $id) { id eventId status } }', {
      variables: { e: endpoint.id, id: log.id },
    });
    expect(gql.body.data?.webhookDelivery).toEqual({ id: log.id, eventId: event.id, status: 'SUCCEEDED' });

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

test(
  'REST actions: test event, rotate-secret (both secrets verify in the overlap), redeliver one event and a time range',
  async () => {
    const created = await rest('/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver, event_types: ['device.deleted'] }) });
    const endpoint = (await created.json()) as { id: string; secret: string };
    const deliveriesOf = (eventId: string) => received.filter((r) => r.headers['webhook-id'] === eventId);

    // A test event goes to this endpoint alone, whatever its event types.
    const t0 = new Date().toISOString();
    const test1 = await rest(`/webhooks/${endpoint.id}/test`, { method: 'POST' });
    expect(test1.status).toBe(202);
    const queued = (await test1.json()) as { event_id: string; event_type: string; endpoint_id: string; status: string };
    expect(queued).toMatchObject({ event_type: 'webhook.test', endpoint_id: endpoint.id, status: 'PENDING' });
    const first = await until('the test event', () => deliveriesOf(queued.event_id)[0]);
    expect(new Webhook(endpoint.secret).verify(first.body, first.headers)).toMatchObject({ type: 'webhook.test', data: { webhook_endpoint_id: endpoint.id } });

    // Rotation: the new secret is shown once; the old one keeps signing beside it for the overlap.
    const badRotate = await rest(`/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', body: JSON.stringify({ overlap_seconds: 10_000_000 }) });
    expect(badRotate.status).toBe(400);
    expect(JSON.stringify(await badRotate.json())).toContain('overlap_seconds');
    const rotated = await rest(`/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', body: JSON.stringify({ overlap_seconds: 3600 }) });
    expect(rotated.status).toBe(200);
    const after = (await rotated.json()) as { id: string; secret: string; previous_secret_expires_at: string | null };
    expect(after.secret).toMatch(/^whsec_/);
    expect(after.secret).not.toBe(endpoint.secret);
    expect(Date.parse(after.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(3500_000);
    expect(await (await rest(`/webhooks/${endpoint.id}`)).text()).not.toContain('whsec_');
    const test2 = (await (await rest(`/webhooks/${endpoint.id}/test`, { method: 'POST' })).json()) as { event_id: string };
    const second = await until('the test event after rotation', () => deliveriesOf(test2.event_id)[0]);
    expect(new Webhook(after.secret).verify(second.body, second.headers)).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(endpoint.secret).verify(second.body, second.headers)).toMatchObject({ type: 'webhook.test' });

    // Redelivery of one event: the same webhook-id arrives again; of a range: both test events.
    await until('both logged SUCCEEDED', async () => {
      const rows = (await (await rest(`/webhooks/${endpoint.id}/deliveries`)).json()) as { status: string }[];
      return rows.length === 2 && rows.every((r) => r.status === 'SUCCEEDED');
    });
    const one = await rest(`/webhooks/${endpoint.id}/redeliver`, { method: 'POST', body: JSON.stringify({ event_id: queued.event_id }) });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ count: 1 });
    await until('the redelivered event', () => deliveriesOf(queued.event_id).length === 2);
    const range = await rest(`/webhooks/${endpoint.id}/redeliver`, { method: 'POST', body: JSON.stringify({ from: t0 }) });
    expect(await range.json()).toEqual({ count: 2 });
    await until('the range redelivered', () => deliveriesOf(queued.event_id).length === 3 && deliveriesOf(test2.event_id).length === 2);

    // Bad input names the REST field; an unknown event is a 404.
    const none = await rest(`/webhooks/${endpoint.id}/redeliver`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error: { field: string } }).error.field).toBe('event_id');
    const badFrom = await rest(`/webhooks/${endpoint.id}/redeliver`, { method: 'POST', body: JSON.stringify({ from: 'yesterday' }) });
    expect(((await badFrom.json()) as { error: { field: string } }).error.field).toBe('from');
    expect((await rest(`/webhooks/${endpoint.id}/redeliver`, { method: 'POST', body: JSON.stringify({ event_id: 'evt_unknown' }) })).status).toBe(404);
    expect((await rest('/webhooks/wh_unknown/test', { method: 'POST' })).status).toBe(404);
  },
  LIMIT,
);

test(
  'a dead endpoint is disabled after the failure window: webhook_endpoint.disabled and an open alert',
  async () => {
    // A port nothing listens on (allow-listed loopback): every attempt is refused.
    const dead = await new Promise<number>((r) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => r(port));
      });
    });
    const created = await rest('/webhooks', { method: 'POST', body: JSON.stringify({ url: `http://127.0.0.1:${dead}/hook` }) });
    const endpoint = (await created.json()) as { id: string };
    expect((await rest(`/webhooks/${endpoint.id}/test`, { method: 'POST' })).status).toBe(202);
    const disabled = await until(
      'the endpoint disabled',
      async () => {
        const e = (await (await rest(`/webhooks/${endpoint.id}`)).json()) as { enabled: boolean; disabled_reason: string | null };
        return e.enabled ? undefined : e;
      },
      LIMIT - 20_000,
    );
    expect(disabled.disabled_reason).toMatch(/failed since/);
    const gql = async () =>
      (await (
        await fetch(`${h.baseUrl}/graphql`, {
          method: 'POST',
          headers: { 'x-service-apikey': h.key, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ alert(activeOnly: true) { id reason alertRule { name } devices { id } } }' }),
        })
      ).json()) as { data: { alert: { id: string; reason: string; alertRule: { name: string }; devices: unknown[] }[] } };
    const alert = await until('the alert', async () => (await gql()).data.alert.find((a) => a.reason.includes(endpoint.id)));
    expect(alert).toMatchObject({ alertRule: { name: 'Webhook endpoint disabled' }, devices: [] });
  },
  LIMIT,
);

test(
  'content expiry through the composition: content.running_empty at once inside the lead, content.expired at the instant, and a "Content runs empty" alert',
  async () => {
    const created = await rest('/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: receiver, event_types: ['content.expired', 'content.running_empty'] }),
    });
    expect(created.status).toBe(201);
    const made = await h.gql('mutation { createPlaylist(input: { name: "Expiring e2e" }) { playlist { id } } }');
    const playlistId = (made.body as { data: { createPlaylist: { playlist: { id: string } } } }).data.createPlaylist.playlist.id;
    // Its only source expires in about 3 s (whole seconds, as stored): well inside the 24 h lead.
    const validUntil = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const added = await h.gql('mutation($i: AddPlaylistWebPageInput!) { addPlaylistWebPage(input: $i) { success } }', {
      variables: { i: { playlistId, url: 'https://example.com/sale', validUntil } },
    });
    expect(added.body).toEqual({ data: { addPlaylistWebPage: { success: true } } });
    const delivered = await until('both events delivered', () => {
      const mine = received.map((r) => JSON.parse(r.body) as PushEvent).filter((e) => (e.data as { playlist_id?: string }).playlist_id === playlistId);
      return mine.some((e) => e.type === 'content.expired') && mine.some((e) => e.type === 'content.running_empty') ? mine : undefined;
    });
    expect(delivered.map((e) => [e.type, e.data])).toEqual([
      ['content.running_empty', { playlist_id: playlistId, media_id: null, name: 'Expiring e2e', runs_empty_at: validUntil }],
      ['content.expired', expect.objectContaining({ playlist_id: playlistId, media_id: null, valid_until: validUntil })],
    ]);
    const alerts = async () =>
      (
        (await h.gql('{ alert(activeOnly: true) { reason alertRule { name } } }')).body as {
          data: { alert: { reason: string; alertRule: { name: string } }[] };
        }
      ).data.alert;
    const alert = await until('the alert', async () => (await alerts()).find((a) => a.reason.includes(playlistId)));
    expect(alert).toEqual({
      alertRule: { name: 'Content runs empty' },
      reason: `playlist 'Expiring e2e' (${playlistId}) runs empty at ${validUntil}: every source of it expires by then`,
    });
  },
  LIMIT,
);
