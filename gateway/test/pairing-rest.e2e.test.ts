/**
 * GET /devices/claim/{code} (getPairingRequest): an operator sees the screen waiting with a pairing
 * code before claiming it. Needs a key (401) with Devices_Edit (a Viewer: 403); the code's case and
 * dashes are ignored; an unknown code is 404; a code claimed by another account is gone for
 * everyone (404), so one account never sees another's paired screen; misses count against the
 * account like failed claims (429 after 10), other accounts unaffected.
 */
import { createAccount, createApiKey, createUser, type IdentityService } from '@pylon/identity';
import { startHarness, type Harness } from './harness.js';

type Json = Record<string, any>;
let h: Harness;
const keys: Record<'viewer' | 'b' | 'c', string> = { viewer: '', b: '', c: '' };

beforeAll(async () => {
  h = await startHarness();
  const identity = (h.subgraphs.identity as unknown as IdentityService).repo;
  const viewer = await createUser(identity, { accountId: 'demo-account', username: 'pairing-viewer', roles: ['Viewer', 'API'] });
  keys.viewer = (await createApiKey(identity, { accountId: 'demo-account', userId: viewer.id, name: 'viewer' })).value;
  for (const acc of ['b', 'c'] as const) {
    await createAccount(identity, { id: `pairing-${acc}`, name: `Pairing ${acc}`, timezone: 'UTC' });
    const owner = await createUser(identity, { accountId: `pairing-${acc}`, username: `owner-${acc}`, roles: ['Owner', 'API'] });
    keys[acc] = (await createApiKey(identity, { accountId: `pairing-${acc}`, userId: owner.id, name: acc })).value;
  }
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const rest = async (method: string, path: string, key: string | null = h.key, body?: unknown) => {
  const res = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { ...(key ? { 'x-service-apikey': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
};
/** A /play screen asking for a code, as the page does. */
const waitingScreen = async () => {
  const r = await rest('POST', '/player/pairings', null, { user_agent: 'Mozilla/5.0 (SMART-TV)', width: 1920, height: 1080 });
  expect(r.status).toBe(201);
  return r.body.code as string;
};

test('the waiting screen, before the claim: user agent, screen size, expiry; case and dashes ignored', async () => {
  const code = await waitingScreen();
  const r = await rest('GET', `/devices/claim/${code.slice(0, 3).toLowerCase()}-${code.slice(3)}`);
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ code, expires_at: expect.any(String), user_agent: 'Mozilla/5.0 (SMART-TV)', screen_width: 1920, screen_height: 1080 });
  expect(Date.parse(r.body.expires_at)).toBeGreaterThan(Date.now());
});

test('no key: 401; a Viewer: 403; an unknown code: 404', async () => {
  const code = await waitingScreen();
  expect((await rest('GET', `/devices/claim/${code}`, null)).status).toBe(401);
  expect((await rest('GET', `/devices/claim/${code}`, keys.viewer)).status).toBe(403);
  const miss = await rest('GET', '/devices/claim/ZZZZZZ');
  expect([miss.status, miss.body]).toMatchObject([404, { error: { code: 'NOT_FOUND' } }]);
});

test("a code another account claimed is gone: its screen's details are not shown to anyone", async () => {
  const code = await waitingScreen();
  const claimed = await rest('POST', '/devices/claim', keys.b, { code, name: 'B lobby' });
  expect(claimed.status).toBe(201);
  expect((await rest('GET', `/devices/claim/${code}`)).status).toBe(404);
  expect((await rest('GET', `/devices/claim/${code}`, keys.b)).status).toBe(404);
});

test('misses count like failed claims: 429 for that account after 10, another account unaffected', async () => {
  let last = 0;
  for (let i = 0; i < 11; i++) last = (await rest('GET', `/devices/claim/MISS${i}X`, keys.c)).status;
  expect(last).toBe(429);
  const code = await waitingScreen();
  expect((await rest('GET', `/devices/claim/${code}`, keys.b)).status).toBe(200);
});
