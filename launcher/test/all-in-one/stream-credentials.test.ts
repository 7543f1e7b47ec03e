/**
 * The live stream behind the all-in-one's rate-limited authenticator (streamCredentials): its
 * credential re-check spends none of the key's budget and survives the key being over its limit,
 * yet still ends the stream on revocation; streams are counted per key as the rate limits resolve
 * it, so a changing Authorization header beside ?api_key= does not open more than the cap.
 */
import express from 'express';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentStore, Principal } from '@pylon/kit';
import { createMemoryLeases, createMemoryRateLimiter } from '@pylon/adapters/memory';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { openEventStream, serveOnFreePort, testPrincipal, until } from '@pylon/kit/testing';
import { credentialsFrom, type EdgeAuthenticator } from '@pylon/gateway/edge-auth';
import { limitedAuthenticator } from '@pylon/gateway/rate-limits';
import { PushEventLog } from '@pylon/identity/features/webhooks/event-log';
import { createEventsStreamHttp } from '@pylon/identity/features/webhooks/http/events-stream.http';
import { streamCredentials } from '../../src/all-in-one/access.js';

let dir: string;
let store: DocumentStore;
let server: Awaited<ReturnType<typeof serveOnFreePort>>;
let base: string;
let stream: ReturnType<typeof createEventsStreamHttp>;
const KEYS = new Map<string, Principal>([
  ['k1', testPrincipal('acc-a')],
  ['k2', testPrincipal('acc-b')],
]);
const identify: EdgeAuthenticator = { authenticate: async ({ apiKey }) => (apiKey ? (KEYS.get(apiKey) ?? null) : null) };
const requests = createMemoryRateLimiter({ name: 'requests', points: 5, durationSeconds: 60 });
const failures = createMemoryRateLimiter({ name: 'auth-failures', points: 100, durationSeconds: 60 });
const auth = limitedAuthenticator(identify, { requests, failures });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-sse-creds-'));
  store = await createLmdbDocumentStore({ path: dir });
  stream = createEventsStreamHttp(new PushEventLog(store), {
    authenticate: (req) => auth.authenticate(credentialsFrom(req)),
    ...streamCredentials(identify),
    recheckMs: 50,
    pollMs: 20,
    leases: createMemoryLeases(),
    maxPerCredential: 2,
  });
  server = await serveOnFreePort(express().use(stream));
  base = server.base;
});
afterAll(async () => {
  stream.closeAll();
  await server.close();
  await Promise.all([store.close(), requests.close(), failures.close()]);
  await rm(dir, { recursive: true, force: true });
});

const open = (path: string, headers: Record<string, string> = {}) => openEventStream(`${base}${path}`, headers);

test("a stream survives its key's rate limit being exhausted by other requests, and still ends on revocation", async () => {
  const s = await open('/events/stream', { 'x-service-apikey': 'k1' });
  expect(s.status).toBe(200);
  try {
    await until('the stream open', () => s.text().includes('stream open'), 10_000);
    // Other requests spend the rest of k1's budget (5 per minute; the stream's opening took one).
    let refused = false;
    for (let i = 0; i < 10 && !refused; i++)
      refused = await auth.authenticate({ apiKey: 'k1', ip: '127.0.0.1' }).then(
        () => false,
        () => true,
      );
    expect(refused).toBe(true);
    // Many re-checks later (every 50 ms), the stream is still open.
    await new Promise((r) => setTimeout(r, 500));
    expect(s.ended()).toBe(false);
    expect(s.text()).not.toContain('event: error');
    KEYS.delete('k1');
    await until('the stream ended on revocation', () => s.ended(), 10_000);
    expect(s.text()).toContain('revoked or has expired');
  } finally {
    s.close();
  }
});

test('streams are counted per API key: ?api_key= with a different Authorization header each time gets no more than the cap', async () => {
  const opened = [];
  try {
    for (let i = 0; i < 3; i++) opened.push(await open('/events/stream?api_key=k2', { authorization: `Bearer junk-${i}` }));
    expect(opened.map((s) => s.status)).toEqual([200, 200, 429]);
  } finally {
    for (const s of opened) s.close();
  }
});
