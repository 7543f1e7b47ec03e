/**
 * Distributed mode: push events from a process other than devices. Identity, content, the
 * webhook-worker and the gateway run as separate processes over one LMDB documents store and one
 * stream (Redis Streams, STREAM_DRIVER=redis, a prefix unique to this run). A playlist created
 * through the gateway (content process) is published by content, delivered signed by the
 * webhook-worker to a loopback receiver (verified with `standardwebhooks`), written to the event
 * log by the same worker, and read live through the gateway's GET /events/stream (forwarded to
 * identity), which also resumes after a Last-Event-ID. Skipped when Redis does not answer.
 * Readiness: 60 s per process; waits: 60 s.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createRedisCache } from '@pylon/adapters/redis';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createAccount, createApiKey, createIdentitySubgraph, createUser } from '@pylon/identity';
import { InternalTokens, PUSH_EVENTS_TOPIC, type PushEvent } from '@pylon/kit';
import { until } from '@pylon/kit/testing';
import { freePort, gatewayEnv, Processes, REDIS_URL, redisAnswers } from './processes.js';

const secret = randomBytes(32).toString('hex');
const KEY = 'distributed-push-key-0123456789';
const PREFIX = `pylon-test-push-${randomBytes(4).toString('hex')}:`;
const LIMIT = 60_000;
const redisUp = await redisAnswers();
const maybe = redisUp ? describe : describe.skip;

let procs: Processes;
let gatewayUrl = '';
let receiver: Server;
let receiverUrl = '';
const received: { headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  if (!redisUp) return;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  procs = await Processes.inTempDir('dist-push', { secret, logLevel: 'warn' });
  const store = await createLmdbDocumentStore({ path: join(procs.dataDir, 'documents') });
  const identity = createIdentitySubgraph({ documents: store, cache: createMemoryCache(), tokens: new InternalTokens(secret), principalCacheSeconds: 30 });
  await createAccount(identity.repo, { id: 'dist-push', name: 'Push Co' });
  const user = await createUser(identity.repo, { accountId: 'dist-push', username: 'owner@push.example', roles: ['Owner', 'API'] });
  await createApiKey(identity.repo, { accountId: 'dist-push', userId: user.id, name: 'e2e', value: KEY });
  await store.close();

  const stream = { STREAM_DRIVER: 'redis', REDIS_URL, REDIS_STREAM_PREFIX: PREFIX };
  const [pi, pc, pw, pg, dead] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const [identityUrl, contentUrl] = await Promise.all([
    procs.start('services/identity/src/main.ts', stream, pi, LIMIT),
    procs.start('services/content/src/main.ts', stream, pc, LIMIT),
    procs.start('services/identity/src/webhooks.main.ts', { ...stream, WEBHOOK_ALLOW_LIST: '127.0.0.1', WEBHOOK_POLL_MS: '50' }, pw, LIMIT),
  ]);
  const nowhere = `http://127.0.0.1:${dead}`;
  gatewayUrl = await procs.start('gateway/src/gateway.main.ts', gatewayEnv(nowhere, { IDENTITY_URL: identityUrl!, CONTENT_URL: contentUrl! }), pg, LIMIT);
}, 4 * LIMIT);

afterAll(async () => {
  if (!redisUp) return;
  await procs?.dispose();
  await new Promise((r) => receiver.close(r));
  // The run's only stream (its consumer groups go with it).
  const redis = createRedisCache({ url: REDIS_URL });
  await redis.del(`${PREFIX}${PUSH_EVENTS_TOPIC}`);
  await redis.close();
});

const gql = async (query: string, variables?: Record<string, unknown>) => {
  const res = await fetch(`${gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': KEY },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: Record<string, any>; errors?: unknown[] };
};

/** Opens the SSE stream through the gateway and collects what arrives. */
async function openStream(headers: Record<string, string> = {}) {
  const ctl = new AbortController();
  const res = await fetch(`${gatewayUrl}/events/stream?types=playlist.changed`, { headers: { 'x-service-apikey': KEY, ...headers }, signal: ctl.signal });
  const out = { status: res.status, type: res.headers.get('content-type'), text: '', close: () => ctl.abort() };
  if (res.ok) {
    const reader = res.body!.getReader();
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        out.text += new TextDecoder().decode(value);
      }
    })();
  }
  return out;
}
const streamEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((b) => b.includes('data: '))
    .map(
      (b) =>
        JSON.parse(
          b
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6),
        ) as PushEvent,
    );

maybe('push events in distributed mode', () => {
  test(
    "a content process's playlist.changed reaches a webhook receiver (signed) and the SSE stream through the gateway, which resumes after Last-Event-ID",
    async () => {
      const hook = await gql(
        'mutation($u: String!) { createWebhookEndpoint(input: { url: $u, eventTypes: ["playlist.changed"] }) { success error secret endpoint { id } } }',
        {
          u: receiverUrl,
        },
      );
      expect(hook.data?.createWebhookEndpoint).toMatchObject({ success: true });
      const whsec = hook.data!.createWebhookEndpoint.secret as string;

      const live = await openStream();
      expect(live.status).toBe(200);
      expect(live.type).toContain('text/event-stream');
      await until('the stream to open', () => live.text.includes(': stream open'), LIMIT);

      const first = await gql('mutation { createPlaylist(input: { name: "Distributed push 1" }) { success playlist { id } } }');
      const playlistId = first.data!.createPlaylist.playlist.id as string;

      const delivery = await until('the signed delivery', () => received.find((r) => r.body.includes(playlistId)), LIMIT);
      const event = new Webhook(whsec).verify(delivery.body, delivery.headers) as PushEvent;
      expect(event).toMatchObject({ type: 'playlist.changed', account_id: 'dist-push', data: { playlist_id: playlistId, change: 'created' } });

      await until('the event on the stream', () => streamEvents(live.text).some((e) => e.id === event.id), LIMIT);
      live.close();

      // Resume after the first event: the next one comes, the first does not come again.
      const second = await gql('mutation { createPlaylist(input: { name: "Distributed push 2" }) { success playlist { id } } }');
      const secondId = second.data!.createPlaylist.playlist.id as string;
      const resumed = await openStream({ 'last-event-id': event.id });
      expect(resumed.status).toBe(200);
      await until(
        'the second event after Last-Event-ID',
        () => streamEvents(resumed.text).some((e) => (e.data as { playlist_id?: string }).playlist_id === secondId),
        LIMIT,
      );
      expect(streamEvents(resumed.text).some((e) => e.id === event.id)).toBe(false);
      resumed.close();

      // Unauthenticated: 401 at the edge; an unknown id: 410 from identity through the edge.
      expect((await fetch(`${gatewayUrl}/events/stream`)).status).toBe(401);
      const gone = await fetch(`${gatewayUrl}/events/stream?last_event_id=evt_unknown`, { headers: { 'x-service-apikey': KEY } });
      expect(gone.status).toBe(410);
    },
    3 * LIMIT,
  );
});
