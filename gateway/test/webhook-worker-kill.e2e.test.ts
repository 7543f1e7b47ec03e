/**
 * A webhook-worker process killed with SIGKILL in the middle of a delivery loses nothing: worker A
 * (a real child process, the `webhook-worker` role's entry) takes the delivery's lease and posts
 * it to a loopback receiver that holds the request open; A is killed -9 at once; worker B (another
 * process on the same documents store, started then) makes the attempt again once A's lease has run out
 * (WEBHOOK_TIMEOUT_MS 2 s + 5 s), the receiver answers 204, and the delivery ends SUCCEEDED with
 * B's attempt logged: the event arrived twice (at-least-once, same webhook-id), never lost.
 * Readiness: 60 s per process; waits: 60 s.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { pushEvent, type DocumentStore, type PushEvent } from '@pylon/kit';
import { until } from '@pylon/kit/testing';
import { createEndpoint, deliveryOf } from '@pylon/identity/features/webhooks/manage-webhooks';
import { WebhookRepository } from '@pylon/identity/features/webhooks/webhook.repository';
import { freePort, Processes } from './processes.js';

const LIMIT = 60_000;
const TENANT = 'kill-9-account';
let procs: Processes;
let dataDir: string;
let store: DocumentStore;
let receiver: Server;
const requests: { headers: Record<string, string>; body: string; res: ServerResponse<IncomingMessage> }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ headers: req.headers as Record<string, string>, body, res });
      // The first request is held open (worker A is killed while it waits); later ones succeed.
      if (requests.length > 1) res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  dataDir = await mkdtemp(join(tmpdir(), 'pylon-kill-webhook-'));
  procs = new Processes({ secret: randomBytes(32).toString('hex'), dataDir, logLevel: 'warn' });
  store = await createLmdbDocumentStore({ path: join(dataDir, 'documents') });
}, LIMIT);

afterAll(async () => {
  await procs?.stopAll();
  for (const r of requests) r.res.destroy();
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
  await store?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test(
  'worker A killed -9 mid-delivery: worker B delivers it after the lease runs out',
  async () => {
    const repo = new WebhookRepository(store);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const { endpoint, secret } = await createEndpoint({ repo, now: Date.now }, TENANT, { url });
    const event = pushEvent(TENANT, 'webhook.test', { webhook_endpoint_id: endpoint.id, message: 'kill -9' }) as PushEvent;
    const queued = await repo.queue(TENANT, deliveryOf(endpoint.id, event, new Date().toISOString()));
    expect(queued).not.toBeNull();

    // Each worker has its own (memory) stream: the delivery queue they share is the documents store.
    const env = { STREAM_DRIVER: 'memory', WEBHOOK_ALLOW_LIST: '127.0.0.1', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' };
    const [pa, pb] = await Promise.all([freePort(), freePort()]);
    await procs.start('services/identity/src/webhooks.main.ts', env, pa, LIMIT);
    const workerA = procs.children[0]!;
    await until('worker A posting the event', () => requests.length >= 1, LIMIT);
    expect(requests[0]!.headers['webhook-id']).toBe(event.id);

    // Killed while the attempt is in flight (before its 2 s timeout could settle it).
    const exited = new Promise((r) => workerA.once('exit', r));
    workerA.kill('SIGKILL');
    await exited;
    expect(workerA.signalCode).toBe('SIGKILL');
    await procs.start('services/identity/src/webhooks.main.ts', env, pb, LIMIT);

    const retried = await until('worker B retrying', () => requests[1], LIMIT);
    expect(retried.headers['webhook-id']).toBe(event.id);
    expect(new Webhook(secret).verify(retried.body, retried.headers)).toMatchObject({ id: event.id, type: 'webhook.test' });
    const done = await until(
      'the delivery SUCCEEDED',
      async () => {
        const d = await repo.findDelivery(TENANT, queued!.id);
        return d?.status === 'SUCCEEDED' ? d : undefined;
      },
      LIMIT,
    );
    // A's attempt never settled (it died holding it); B's is the one logged.
    expect(done.attempts).toEqual([expect.objectContaining({ statusCode: 204 })]);
    expect(requests).toHaveLength(2);
  },
  3 * LIMIT,
);
