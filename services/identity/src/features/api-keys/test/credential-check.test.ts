/**
 * The credential re-check behind the distributed live stream (issue 34, M3), on a real embedded
 * store: the authenticator's principal names its API key, the gateway's signed token carries that
 * reference, and identity's check answers from its own store (revoked, expired, role lost) or the
 * token's expiry; a stream re-checked this way ends at the token's expiry.
 */
import express from 'express';
import { InternalTokens, type DocumentStore, type Principal } from '@pylon/kit';
import { createMemoryCache, createMemoryLeases } from '@pylon/adapters/memory';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { serveOnFreePort, testPrincipal } from '@pylon/kit/testing';
import { IdentityRepository } from '../../../shared/identity.repository.js';
import { PushEventLog } from '../../webhooks/push-event-log.repository.js';
import { createAccount, createUser } from '../../accounts/accounts.js';
import { ApiKeyAuthenticator, createApiKey, revokeApiKey } from '../api-keys.js';
import { credentialChecker } from '../credential-check.js';
import { policiesFor } from '../../../domain/roles.js';
import { createEventsStreamHttp } from '../../webhooks/http/events-stream.http.js';

let store: DocumentStore;
let repo: IdentityRepository;
beforeEach(async () => {
  store = await createScratchLmdbStore('pylon-cred-check-');
  repo = new IdentityRepository(store);
  await createAccount(repo, { id: 'acc-a', name: 'A' });
});
afterEach(() => store.close());

const tokens = new InternalTokens('s'.repeat(32));
/** The principal as identity sees it behind the gateway: authenticated, signed, verified. */
async function signedPrincipalOf(value: string): Promise<Principal> {
  const p = await new ApiKeyAuthenticator({ repo, cache: createMemoryCache(), cacheTtlSeconds: 30 }).authenticate(value);
  return tokens.verify(await tokens.sign(p!));
}

test('an API key: holds until revoked; the reference survives the signed token', async () => {
  const user = await createUser(repo, { accountId: 'acc-a', username: 'api@a.example', roles: ['Editor', 'API'] });
  const { key, value } = await createApiKey(repo, { accountId: 'acc-a', userId: user.id, name: 'k' });
  const p = await signedPrincipalOf(value);
  expect(p.credential).toEqual({ kind: 'api-key', id: key.id });
  const holds = credentialChecker(repo, { memoMs: 0 });
  expect(await holds(p)).not.toBeNull();
  await revokeApiKey({ repo, cache: createMemoryCache() }, 'acc-a', key.id);
  expect(await holds(p)).toBeNull();
});

test("the answer carries the user's current roles and policies, not the ones the signed token claims", async () => {
  const user = await createUser(repo, { accountId: 'acc-a', username: 'viewer@a.example', roles: ['Viewer', 'API'] });
  const { key } = await createApiKey(repo, { accountId: 'acc-a', userId: user.id, name: 'k' });
  // A token signed when the user held every policy (testPrincipal's default).
  const stale: Principal = { ...testPrincipal('acc-a', undefined, user.id), credential: { kind: 'api-key', id: key.id } };
  const now = await credentialChecker(repo, { memoMs: 0 })(stale);
  expect(now).toMatchObject({ roles: ['Viewer', 'API'], policies: policiesFor(['Viewer', 'API']) });
  expect(now!.policies).not.toContain('Webhooks_View');
});

test('an API key past its expiry, one whose user has no API role, one named for another user: refused', async () => {
  let now = Date.now();
  const user = await createUser(repo, { accountId: 'acc-a', username: 'api@a.example', roles: ['Editor', 'API'] });
  const { key, value } = await createApiKey(repo, { accountId: 'acc-a', userId: user.id, name: 'k', expiresAt: new Date(now + 60_000).toISOString() });
  const p = await signedPrincipalOf(value);
  const holds = credentialChecker(repo, { memoMs: 0, now: () => now });
  expect(await holds(p)).not.toBeNull();
  now += 60_000;
  expect(await holds(p)).toBeNull();
  const plain = await createUser(repo, { accountId: 'acc-a', username: 'plain@a.example', roles: ['Editor'] });
  const { key: noRole } = await createApiKey(repo, { accountId: 'acc-a', userId: plain.id, name: 'k2' });
  expect(await holds({ ...testPrincipal('acc-a', [], plain.id), credential: { kind: 'api-key', id: noRole.id } })).toBeNull();
  expect(await holds({ ...testPrincipal('acc-a', [], 'someone-else'), credential: { kind: 'api-key', id: key.id } })).toBeNull();
});

test('a bearer token holds until its expiry; internal callers hold; a key principal without a reference does not', async () => {
  let now = Date.now();
  const user = await createUser(repo, { accountId: 'acc-a', username: 'login@a.example', roles: ['Viewer'] });
  const holds = credentialChecker(repo, { memoMs: 0, now: () => now });
  const bearer: Principal = { ...testPrincipal('acc-a', [], user.id), via: 'bearer', credential: { kind: 'bearer', expiresAt: now + 1_000 } };
  expect((await tokens.verify(await tokens.sign(bearer))).credential).toEqual(bearer.credential);
  expect(await holds(bearer)).not.toBeNull();
  now += 1_000;
  expect(await holds(bearer)).toBeNull();
  expect(await holds({ ...testPrincipal('acc-a'), via: 'internal' })).not.toBeNull();
  expect(await holds(testPrincipal('acc-a'))).toBeNull();
});

test("a stream re-checked this way ends at its token's expiry with event: error", async () => {
  const user = await createUser(repo, { accountId: 'acc-a', username: 'login@a.example', roles: ['Owner'] });
  const expiresAt = Date.now() + 1_500;
  const principal: Principal = { ...testPrincipal('acc-a', undefined, user.id), via: 'bearer', credential: { kind: 'bearer', expiresAt } };
  const holds = credentialChecker(repo);
  const router = createEventsStreamHttp(new PushEventLog(store), {
    authenticate: async () => principal,
    recheck: (_req, p) => holds(p),
    recheckMs: 100,
    leases: createMemoryLeases(),
  });
  const server = await serveOnFreePort(express().use(router));
  const ac = new AbortController();
  try {
    const res = await fetch(`${server.base}/events/stream`, { signal: ac.signal });
    expect(res.status).toBe(200);
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
    // The server ended it: after the expiry, not before.
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(text).toMatch(/event: error\ndata: .*revoked or has expired/);
  } finally {
    ac.abort();
    router.closeAll();
    await server.close();
  }
}, 30_000);
