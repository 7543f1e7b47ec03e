/**
 * The self-check's end-to-end steps, on whatever ports the composition root hands in (the
 * operator's servers, or embedded stores for the ports not given). Each answers a one-line
 * detail when it held and throws naming what did not.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BufferedPublisher,
  PUSH_EVENTS_TOPIC,
  pushEventsOver,
  TOPICS,
  type AnalyticsStore,
  type DocumentStore,
  type EventStream,
  type Logger,
  type PlayLogRecord,
  type PushEvent,
} from '@pylon/kit';
import { sleep } from '@pylon/kit/contract/wait';
import { startIngest } from '@pylon/analytics/workers/ingest';
import { createEndpoint } from '@pylon/identity/features/webhooks/manage-webhooks';
import { WebhookRepository } from '@pylon/identity/features/webhooks/webhook.repository';
import { startDeliveryWorker } from '@pylon/identity/features/webhooks/webhook-delivery.worker';

export interface ScenarioPorts {
  stream: EventStream;
  analytics: AnalyticsStore;
  documents: DocumentStore;
  logger: Logger;
  /** This run's id: the account (tenant) every record and document of the run belongs to. */
  run: string;
  /** Longest wait for a step's outcome. */
  timeoutMs: number;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, last: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last() ? ` (${last()})` : ''}`);
    await sleep(250);
  }
}

/** Player batches: this many requests of this many plays each; the first request is sent twice (a player retrying). */
export const PLAYER_REQUESTS = 4;
export const PLAYS_PER_REQUEST = 250;
const PLAY_TABLES = ['play_rollup_minute', 'play_rollup_hour', 'play_rollup_day'] as const;

function playerRequests(account: string, now: number): PlayLogRecord[][] {
  return Array.from({ length: PLAYER_REQUESTS }, (_, r) =>
    Array.from({ length: PLAYS_PER_REQUEST }, (_, i) => ({
      id: `${account}-${r}-${i}`,
      account_id: account,
      device_id: `verify-screen-${r % 2}`,
      file_id: `verify-file-${i % 5}`,
      file_name: `verify-file-${i % 5}.png`,
      // Within the last hour, so no retention setting drops them.
      timestamp: new Date(now - 60_000 - (r * PLAYS_PER_REQUEST + i) * 1_000).toISOString(),
      duration: 10,
      type: 'image',
      playlist_id: 'verify-playlist',
      schedule_id: 'verify-schedule',
      file_known: 1,
    })),
  );
}

/**
 * Player batches through the stream into the analytics store with the real ingest: every record
 * once in `play_logs` and in every play rollup, the retried request included.
 */
export async function telemetryScenario(p: ScenarioPorts): Promise<string> {
  const account = `verify-${p.run}`;
  const requests = playerRequests(account, Date.now());
  const expected = PLAYER_REQUESTS * PLAYS_PER_REQUEST;
  const ingest = await startIngest({ stream: p.stream, analytics: p.analytics, logger: p.logger, group: 'pylon-verify-ingest', maxWaitMs: 100 });
  const publisher = new BufferedPublisher<PlayLogRecord>(p.stream, TOPICS.plays, { logger: p.logger, maxWaitMs: 20 });
  try {
    for (const r of requests) await publisher.hold(r);
    await publisher.hold(requests[0]!);
    const acc = { acc: account };
    const count = async (sql: string) => Number((await p.analytics.query<{ n: number | string }>(sql, acc))[0]?.n ?? 0);
    let seen = { raw: -1, lag: -1 };
    await until(
      `${expected} plays in play_logs with nothing left to consume`,
      p.timeoutMs,
      async () => {
        const raw = await count('SELECT count() AS n FROM play_logs FINAL WHERE account_id = {acc:String}');
        const lag = (await p.stream.lag()).filter((l) => l.topic === TOPICS.plays).reduce((n, l) => n + l.lag, 0);
        seen = { raw, lag };
        return raw >= expected && lag === 0 ? true : undefined;
      },
      () => `last seen: ${seen.raw} rows, lag ${seen.lag}`,
    );
    const counts: Record<string, number> = { play_logs: await count('SELECT count() AS n FROM play_logs WHERE account_id = {acc:String}') };
    for (const t of PLAY_TABLES) counts[t] = await count(`SELECT sum(plays) AS n FROM ${t} WHERE account_id = {acc:String}`);
    // play_logs without FINAL: a duplicate part not yet merged away shows as a second row, and a rollup fed twice as an over-count.
    const wrong = Object.entries(counts).filter(([, n]) => n !== expected);
    if (wrong.length)
      throw new Error(`sent ${expected} plays (${PLAYER_REQUESTS + 1} requests, one retried), counted ${wrong.map(([t, n]) => `${n} in ${t}`).join(', ')}`);
    return `${expected} plays in ${PLAYER_REQUESTS + 1} player requests (one retried): ${expected} in play_logs and in each of ${PLAY_TABLES.join(', ')}`;
  } finally {
    await publisher.close();
    await ingest.close();
  }
}

interface VerifyNote {
  note: string;
  writtenAt: string;
  nested: { n: number; list: string[] };
}

/** A document written, read back equal (by id and by a filter), updated and deleted. */
export async function documentScenario(documents: DocumentStore, run: string): Promise<string> {
  const tenant = `verify-${run}`;
  const notes = documents.collection<VerifyNote>({ name: 'pylon_verify_notes' });
  const doc: VerifyNote = { note: 'written by pylon verify ✓', writtenAt: new Date().toISOString(), nested: { n: 42, list: ['a', 'b'] } };
  const stored = await notes.insert(tenant, doc);
  const back = await notes.findById(tenant, stored.id);
  const same = (x: VerifyNote | null) =>
    x !== null && x.note === doc.note && x.writtenAt === doc.writtenAt && JSON.stringify(x.nested) === JSON.stringify(doc.nested);
  if (!same(back)) throw new Error(`read back ${JSON.stringify(back)} for ${JSON.stringify(doc)}`);
  const found = await notes.find(tenant, { note: doc.note });
  if (found.length !== 1 || found[0]!.id !== stored.id) throw new Error(`a filter on the note found ${found.length} documents, not the one written`);
  const updated = await notes.update(tenant, stored.id, { $set: { 'nested.n': 43 } });
  if (updated?.nested.n !== 43) throw new Error('an update was not read back');
  if (!(await notes.delete(tenant, stored.id)) || (await notes.findById(tenant, stored.id)) !== null) throw new Error('a delete was not read back');
  return 'written, read back by id and by filter, updated, deleted';
}

/** Standard Webhooks signature of a delivery (HMAC-SHA256 over id.timestamp.body with the secret's bytes), computed here independently of the sender. */
function signatureHolds(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const ts = String(headers['webhook-timestamp'] ?? '');
  const want = `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${ts}.${body}`)
    .digest('base64')}`;
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(want);
}

/**
 * A push event through the stream and the real delivery worker to an endpoint stored in the
 * documents store: a receiver this check starts on 127.0.0.1 gets it, signed.
 */
export async function webhookScenario(p: Omit<ScenarioPorts, 'analytics'>): Promise<string> {
  const tenant = `verify-${p.run}`;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pylon-verify`;
  const repo = new WebhookRepository(p.documents);
  const publisher = new BufferedPublisher<PushEvent>(p.stream, PUSH_EVENTS_TOPIC, { logger: p.logger, maxWaitMs: 20 });
  const worker = await startDeliveryWorker({ stream: p.stream, repo, logger: p.logger, allowList: ['127.0.0.1'], pollMs: 200, policy: { timeoutMs: 10_000 } });
  try {
    const started = Date.now();
    const { endpoint, secret } = await createEndpoint({ repo, now: Date.now }, tenant, { url, eventTypes: ['device.registered'], description: 'pylon verify' });
    pushEventsOver(publisher).emit(tenant, 'device.registered', { device_id: 'verify-screen', name: 'verify screen', device_group_id: null, device_tags: [] });
    const got = await until('the webhook delivery at the receiver', p.timeoutMs, async () => received[0]);
    const event = JSON.parse(got.body) as PushEvent;
    if (event.type !== 'device.registered' || event.account_id !== tenant) throw new Error(`the receiver got ${got.body.slice(0, 200)}`);
    if (!signatureHolds(secret, got.headers, got.body)) throw new Error('the delivery arrived with a signature that does not verify with the endpoint secret');
    const ms = Date.now() - started;
    await repo.removeEndpoint(tenant, endpoint.id).catch(() => undefined);
    return `device.registered delivered to ${url} in ${ms} ms, signature verified`;
  } finally {
    await publisher.close();
    await worker.close();
    await new Promise((r) => server.close(r));
  }
}
