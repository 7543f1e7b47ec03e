/**
 * Webhook endpoints and delivery, end to end inside the identity subgraph and the delivery worker
 * with a loopback receiver (allow-listed: the outbound rules refuse loopback otherwise): signatures
 * verify with `standardwebhooks`; a 500 is retried and then succeeds; filters select; secrets are
 * shown once; another account's endpoints and logs stay invisible; the policy is enforced.
 * Waits poll with a 60 s limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { BufferedPublisher, createLogger, POLICIES, PUSH_EVENTS_TOPIC, pushEventsOver, type DocumentStore, type EventStream, type PushEvent } from '@pylon/kit';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createMemoryStream } from '@pylon/adapters/memory';
import { createMemoryCache } from '@pylon/adapters/memory';
import { subgraphRunner, testPrincipal, testTokens, until } from '@pylon/kit/testing';
import { createIdentitySubgraph, type IdentityService } from '../../../app.js';
import { startDeliveryWorker, type DeliveryWorker } from '../webhook-delivery.worker.js';

let store: DocumentStore;
let stream: EventStream;
let publisher: BufferedPublisher<PushEvent>;
let sg: IdentityService;
let worker: DeliveryWorker;
let server: Server;
let base: string;
const received: { path: string; headers: Record<string, string>; body: string }[] = [];
const failFirst = new Map<string, number>();
/** Every push event on the stream (a consumer group of its own). */
const events: PushEvent[] = [];

/** Generous: the waits inside poll with a 60 s limit on a busy machine. */
const LIMIT = 90_000;
const A = testPrincipal('acc-a');
const B = testPrincipal('acc-b');
const run = subgraphRunner(() => sg, A);

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-webhooks-');
  stream = createMemoryStream();
  publisher = new BufferedPublisher<PushEvent>(stream, PUSH_EVENTS_TOPIC, { maxWaitMs: 5 });
  sg = createIdentitySubgraph({ documents: store, cache: createMemoryCache(), tokens: testTokens, principalCacheSeconds: 1 });
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers as Record<string, string>, body });
      const left = failFirst.get(path) ?? 0;
      if (left > 0) {
        failFirst.set(path, left - 1);
        res.writeHead(500).end('try later');
      } else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await stream.subscribe(PUSH_EVENTS_TOPIC, { group: 'test-observer', maxWaitMs: 5 }, async (batch) => {
    events.push(...batch.map((m) => m.value as PushEvent));
  });
  worker = await startDeliveryWorker({
    stream,
    repo: sg.webhooks,
    logger: createLogger({ level: process.env.DEBUG_WEBHOOKS ? 'debug' : 'silent' }),
    allowList: ['127.0.0.1'],
    policy: { baseMs: 50, maxDelayMs: 200, timeoutMs: 5_000, disableAfterMs: 1_500 },
    pollMs: 25,
    pushEvents: pushEventsOver(publisher),
  });
});
afterAll(async () => {
  await worker.close();
  await publisher.close();
  await stream.close();
  await new Promise((r) => server.close(r));
  await store.close();
});

const CREATE =
  'mutation($i: WebhookEndpointInput!) { createWebhookEndpoint(input: $i) { success error errorField secret endpoint { id url eventTypes enabled } } }';
async function createEndpoint(input: Record<string, unknown>, who = A) {
  const r = await run(CREATE, { i: input }, who);
  const p = r.data?.createWebhookEndpoint as { success: boolean; secret: string; endpoint: { id: string } };
  if (!p?.success) throw new Error(JSON.stringify(r));
  return p;
}
const emit = (accountId: string, type: 'device.registered', deviceId: string, tags: string[] = []) =>
  pushEventsOver(publisher).emit(accountId, type, { device_id: deviceId, name: deviceId, device_group_id: null, device_tags: tags });
/** An endpoint at `path` for device.registered whose first `failures` answers are 500s, and one such event (device `dev-<path>`) emitted. */
async function failingEndpoint(path: string, failures: number) {
  const { endpoint } = await createEndpoint({ url: `${base}${path}`, eventTypes: ['device.registered'] });
  failFirst.set(path, failures);
  emit('acc-a', 'device.registered', `dev-${path.slice(1)}`);
  return endpoint;
}

test(
  'a delivery carries Standard Webhooks headers that verify with standardwebhooks; the secret is shown once',
  async () => {
    const { secret, endpoint } = await createEndpoint({ url: `${base}/sig`, eventTypes: ['device.registered'] });
    expect(secret).toMatch(/^whsec_/);
    emit('acc-a', 'device.registered', 'dev-sig');
    const got = await until('the signed delivery', () => received.find((r) => r.path === '/sig'));
    const payload = new Webhook(secret).verify(got.body, got.headers) as PushEvent;
    expect(payload).toMatchObject({ type: 'device.registered', account_id: 'acc-a', data: { device_id: 'dev-sig' } });
    expect(got.headers['webhook-id']).toBe(payload.id);
    const listed = await run('{ webhookEndpoints { id url } }');
    expect(JSON.stringify(listed.data)).not.toContain('whsec_');
    expect((listed.data?.webhookEndpoints as { id: string }[]).map((e) => e.id)).toContain(endpoint.id);
  },
  LIMIT,
);

test(
  'a 500 is retried with backoff, then succeeds; the log shows both attempts',
  async () => {
    const endpoint = await failingEndpoint('/flaky', 1);
    await until('two attempts', () => received.filter((r) => r.path === '/flaky').length >= 2);
    const deadline = Date.now() + 60_000;
    let rows: { status: string; attempts: { statusCode: number }[] }[] = [];
    while (Date.now() < deadline) {
      const r = await run('query($e: String!) { webhookDeliveries(endpointId: $e) { status attempts { statusCode latencyMs responseExcerpt } } }', {
        e: endpoint.id,
      });
      rows = r.data?.webhookDeliveries as typeof rows;
      if (rows[0]?.status === 'SUCCEEDED') break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(rows[0]).toMatchObject({ status: 'SUCCEEDED', attempts: [{ statusCode: 500 }, { statusCode: 200 }] });
  },
  LIMIT,
);

test(
  'filters select: a tag filter passes only events about devices with the tag',
  async () => {
    await createEndpoint({ url: `${base}/tagged`, tag: 'lobby' });
    emit('acc-a', 'device.registered', 'dev-plain');
    emit('acc-a', 'device.registered', 'dev-lobby', ['lobby']);
    await until('the tagged delivery', () => received.find((r) => r.path === '/tagged'));
    await publisher.flush();
    await worker.round();
    const bodies = received.filter((r) => r.path === '/tagged').map((r) => (JSON.parse(r.body) as PushEvent).data);
    expect(bodies).toEqual([expect.objectContaining({ device_id: 'dev-lobby' })]);
  },
  LIMIT,
);

test(
  'another account sees none of the endpoints or logs, and its events reach only its endpoints',
  async () => {
    const { endpoint } = await createEndpoint({ url: `${base}/mine` });
    expect(((await run('{ webhookEndpoints { id } }', {}, B)).data?.webhookEndpoints as unknown[]).length).toBe(0);
    expect(
      ((await run('query($e: String!) { webhookDeliveries(endpointId: $e) { id } }', { e: endpoint.id }, B)).data?.webhookDeliveries as unknown[]).length,
    ).toBe(0);
    const upd = await run('mutation($id: String!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { success errorCode } }', { id: endpoint.id }, B);
    expect(upd.data?.updateWebhookEndpoint).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    const before = received.filter((r) => r.path === '/mine').length;
    emit('acc-b', 'device.registered', 'dev-of-b');
    await publisher.flush();
    await new Promise((r) => setTimeout(r, 200));
    await worker.round();
    expect(received.filter((r) => r.path === '/mine').length).toBe(before);
  },
  LIMIT,
);

test(
  'bad input names the field; a user without Webhooks_Edit is refused; rotation keeps the old secret for the overlap',
  async () => {
    const bad = await run(CREATE, { i: { url: 'file:///etc/passwd' } });
    expect(bad.data?.createWebhookEndpoint).toMatchObject({ success: false, errorField: 'url' });
    const badType = await run(CREATE, { i: { url: `${base}/x`, eventTypes: ['no.such'] } });
    expect(badType.data?.createWebhookEndpoint).toMatchObject({ success: false });
    const viewer = testPrincipal(
      'acc-a',
      POLICIES.filter((p) => p !== 'Webhooks_Edit'),
    );
    const refused = await run(CREATE, { i: { url: `${base}/x` } }, viewer);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const { secret, endpoint } = await createEndpoint({ url: `${base}/rotated`, eventTypes: ['device.registered'] });
    const rot = await run(
      'mutation($id: String!) { rotateWebhookEndpointSecret(id: $id, overlapSeconds: 3600) { success secret endpoint { previousSecretExpiresAt } } }',
      { id: endpoint.id },
    );
    const p = rot.data?.rotateWebhookEndpointSecret as { secret: string; endpoint: { previousSecretExpiresAt: string } };
    expect(p.secret).not.toBe(secret);
    expect(p.endpoint.previousSecretExpiresAt).toBeTruthy();
    emit('acc-a', 'device.registered', 'dev-rot');
    const got = await until('the rotated delivery', () => received.find((r) => r.path === '/rotated'));
    expect(new Webhook(secret).verify(got.body, got.headers)).toBeTruthy();
    expect(new Webhook(p.secret).verify(got.body, got.headers)).toBeTruthy();
  },
  LIMIT,
);

test(
  'redelivery sends the same event again (same webhook-id), on request',
  async () => {
    const { endpoint } = await createEndpoint({ url: `${base}/again`, eventTypes: ['device.registered'] });
    emit('acc-a', 'device.registered', 'dev-again');
    const first = await until('the first delivery', () => received.find((r) => r.path === '/again'));
    const eventId = first.headers['webhook-id']!;
    const r = await run('mutation($id: String!, $e: String) { redeliverWebhookEvents(id: $id, eventId: $e) { success count } }', {
      id: endpoint.id,
      e: eventId,
    });
    expect(r.data?.redeliverWebhookEvents).toMatchObject({ success: true, count: 1 });
    await until('the second delivery', () => received.filter((x) => x.path === '/again').length === 2);
    expect(received.filter((x) => x.path === '/again').map((x) => x.headers['webhook-id'])).toEqual([eventId, eventId]);
    const missing = await run('mutation($id: String!) { redeliverWebhookEvents(id: $id, eventId: "evt_nope") { success errorCode } }', { id: endpoint.id });
    expect(missing.data?.redeliverWebhookEvents).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  },
  LIMIT,
);

test(
  'an endpoint that keeps failing is disabled, with a webhook_endpoint.disabled event',
  async () => {
    const endpoint = await failingEndpoint('/dead', 1_000_000);
    const disabled = await until('the disabled event', () =>
      events.find((e) => e.type === 'webhook_endpoint.disabled' && (e.data as { webhook_endpoint_id: string }).webhook_endpoint_id === endpoint.id),
    );
    expect(disabled.account_id).toBe('acc-a');
    const [e] = (await run('query($id: [String!]) { webhookEndpoints(id: $id) { enabled disabledReason consecutiveFailures } }', { id: [endpoint.id] })).data
      ?.webhookEndpoints as { enabled: boolean; disabledReason: string; consecutiveFailures: number }[];
    expect(e).toMatchObject({ enabled: false });
    expect(e!.disabledReason).toMatch(/failed/);
    expect(e!.consecutiveFailures).toBeGreaterThanOrEqual(2);
    // Disabled: new events are not queued for it.
    const before = received.filter((r) => r.path === '/dead').length;
    emit('acc-a', 'device.registered', 'dev-dead-2');
    await publisher.flush();
    await new Promise((r) => setTimeout(r, 300));
    expect(received.filter((r) => r.path === '/dead').length).toBe(before);
  },
  LIMIT,
);

test(
  'two workers never make the same attempt; a delivery a dead worker leased is made once its lease runs out',
  async () => {
    const { endpoint } = await createEndpoint({ url: `${base}/pair` });
    const second = await startDeliveryWorker({ stream, repo: sg.webhooks, logger: createLogger({ level: 'silent' }), allowList: ['127.0.0.1'], pollMs: 10 });
    try {
      for (let i = 0; i < 40; i++) await run('mutation($id: String!) { sendTestWebhookEvent(id: $id) { success } }', { id: endpoint.id });
      await Promise.all([worker.round(), second.round(), worker.round(), second.round()]);
      await until('40 deliveries', () => received.filter((r) => r.path === '/pair').length >= 40);
      await new Promise((r) => setTimeout(r, 300));
      const ids = received.filter((r) => r.path === '/pair').map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);

      // A worker that leased a delivery and died: nobody attempts it before the lease ends, then one does.
      const t = await run('mutation($id: String!) { sendTestWebhookEvent(id: $id) { delivery { id } } }', { id: endpoint.id });
      const deliveryId = (t.data?.sendTestWebhookEvent as { delivery: { id: string } }).delivery.id;
      const d = (await sg.webhooks.findDelivery('acc-a', deliveryId))!;
      // (The running workers may take it first: then the lease below loses, which is the same guarantee.)
      const leased =
        d.status === 'PENDING' && !d.leaseUntil ? await sg.webhooks.lease('acc-a', d, 'dead-worker', new Date(Date.now() + 1_000).toISOString()) : null;
      if (leased) {
        await Promise.all([worker.round(), second.round()]);
        expect(received.filter((r) => r.path === '/pair').length).toBe(40);
      }
      await until('the orphaned delivery', () => received.filter((r) => r.path === '/pair').length === 41);
      await new Promise((r) => setTimeout(r, 300));
      expect(received.filter((r) => r.path === '/pair').length).toBe(41);
    } finally {
      await second.close();
    }
  },
  LIMIT,
);

test(
  'a loopback address not on the allow-list is refused before connecting',
  async () => {
    const strict = await startDeliveryWorker({ stream, repo: sg.webhooks, logger: createLogger({ level: 'silent' }), allowList: [], pollMs: 60_000 });
    try {
      const { endpoint } = await createEndpoint({ url: `${base.replace('127.0.0.1', 'localhost')}/ssrf` });
      await worker.close(); // only the strict worker attempts now
      const t = await run('mutation($id: String!) { sendTestWebhookEvent(id: $id) { success delivery { id } } }', { id: endpoint.id });
      expect(t.data?.sendTestWebhookEvent).toMatchObject({ success: true });
      await strict.round();
      const rows = (
        await run('query($e: String!) { webhookDeliveries(endpointId: $e) { status attempts { statusCode responseExcerpt } } }', { e: endpoint.id })
      ).data?.webhookDeliveries as { status: string; attempts: { statusCode: number | null; responseExcerpt: string }[] }[];
      expect(rows[0]).toMatchObject({ status: 'FAILED', attempts: [{ statusCode: null }] });
      expect(rows[0]!.attempts[0]!.responseExcerpt).toMatch(/not public/);
      expect(received.find((r) => r.path === '/ssrf')).toBeUndefined();
    } finally {
      await strict.close();
    }
  },
  LIMIT,
);
