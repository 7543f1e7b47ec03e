/**
 * Pairing a /play screen: the player API hands out codes and answers polls; claimDevice (subgraph)
 * turns a code into a device. Expiry, single use, the guessing budget, tenancy of groupId and
 * deviceId, and re-pairing an existing device with its configuration kept.
 */
import { normalizePairingCode, PAIRING_ALPHABET, PAIRING_CLAIM_FAILURES_PER_WINDOW, PAIRING_REQUESTS_PER_WINDOW } from '../../../domain/pairing.js';
import { createDevice, principal, startFixture, type Fixture } from '../../../../test/fixtures/subgraph.js';
import { servePlayer, type PlayerHttp } from '../../../../test/fixtures/player-http.js';

let f: Fixture;
let http: PlayerHttp;
beforeAll(async () => {
  f = await startFixture();
  http = await servePlayer(f.sg.runtime);
});
afterAll(async () => {
  await http.close();
  await f.close();
});

const CLAIM = `mutation($code: String!, $name: String, $groupId: String, $timeZone: String, $deviceId: String) {
  claimDevice(code: $code, name: $name, groupId: $groupId, timeZone: $timeZone, deviceId: $deviceId) {
    success error errorCode errorField device { id name groupId timezone registrationKey notes }
  }
}`;
const claim = (v: Record<string, unknown>, who = principal('acc-a')) => f.run(CLAIM, v, who);

async function requestCode(body: unknown = { user_agent: 'test', width: 1920, height: 1080 }, ip?: string) {
  const res = await fetch(`${http.url}/player/pairings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(ip ? { 'x-forwarded-for': ip } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const poll = async (secret: string) => {
  const res = await fetch(`${http.url}/player/pairings/${encodeURIComponent(secret)}`);
  return { status: res.status, body: (await res.json()) as any };
};

test('a code is 6 characters of the unambiguous alphabet; the screen polls pending, then gets its key once claimed', async () => {
  const r = await requestCode();
  expect(r.status).toBe(201);
  expect(r.body.code).toMatch(new RegExp(`^[${PAIRING_ALPHABET}]{6}$`));
  expect(r.body.secret.length).toBeGreaterThanOrEqual(20);
  expect((await poll(r.body.secret)).body).toMatchObject({ status: 'pending', code: r.body.code });

  const group = await f.run('mutation { createDeviceGroup(input: { name: "Lobby" }) { group { id } } }');
  const groupId = group.data!.createDeviceGroup.group.id;
  // Lower case and a dash are read as the code.
  const typed = `${r.body.code.slice(0, 3).toLowerCase()}-${r.body.code.slice(3)}`;
  const c = await claim({ code: typed, name: 'Window', groupId, timeZone: 'Europe/Amsterdam' });
  expect(c.data!.claimDevice).toMatchObject({ success: true, device: { name: 'Window', groupId, timezone: 'Europe/Amsterdam' } });
  const p = await poll(r.body.secret);
  expect(p.status).toBe(200);
  expect(p.body).toEqual({
    status: 'claimed',
    registration_key: c.data!.claimDevice.device.registrationKey,
    device_id: c.data!.claimDevice.device.id,
    name: 'Window',
  });
  // The key works on the player API.
  expect((await http.ping(p.body.registration_key)).status).toBe(200);
});

test('pairingRequest shows the waiting screen before the claim, and nothing once claimed', async () => {
  const r = await requestCode({ user_agent: 'Mozilla/5.0 (SMART-TV)', width: 3840, height: 2160 });
  const q = 'query($c: String!) { pairingRequest(code: $c) { code expiresAt userAgent screenWidth screenHeight } }';
  const seen = await f.run(q, { c: r.body.code.toLowerCase() });
  expect(seen.data!.pairingRequest).toEqual({
    code: r.body.code,
    expiresAt: r.body.expires_at,
    userAgent: 'Mozilla/5.0 (SMART-TV)',
    screenWidth: 3840,
    screenHeight: 2160,
  });
  expect((await claim({ code: r.body.code, name: 'Seen first' })).data!.claimDevice.success).toBe(true);
  expect((await f.run(q, { c: r.body.code })).data!.pairingRequest).toBeNull();
});

test('a code pairs once: a second claim is refused and creates nothing', async () => {
  const r = await requestCode();
  expect((await claim({ code: r.body.code, name: 'First' })).data!.claimDevice.success).toBe(true);
  const again = (await claim({ code: r.body.code, name: 'Second' })).data!.claimDevice;
  expect(again).toMatchObject({ success: false, errorCode: 'NOT_FOUND', errorField: 'code' });
  const names = (await f.run('{ device { name } }')).data!.device.map((d: { name: string }) => d.name);
  expect(names).not.toContain('Second');
});

test('codes expire after 10 minutes: no claim, and the poll says so', async () => {
  const r = await requestCode();
  f.clock.now += 601_000;
  expect((await claim({ code: r.body.code, name: 'Late' })).data!.claimDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  expect((await poll(r.body.secret)).status).toBe(404);
});

test('the code alone reveals nothing: an unknown secret is a 404', async () => {
  const r = await requestCode();
  expect((await poll(r.body.code)).status).toBe(404);
  expect((await poll('x'.repeat(22))).status).toBe(404);
});

test('groupId and deviceId of another account are refused; the code stays claimable', async () => {
  const r = await requestCode();
  const foreignGroup = (await f.run('mutation { createDeviceGroup(input: { name: "B" }) { group { id } } }', {}, principal('acc-b'))).data!.createDeviceGroup
    .group.id;
  const foreignDevice = await createDevice(f, { name: 'B screen' }, principal('acc-b'));
  expect((await claim({ code: r.body.code, name: 'X', groupId: foreignGroup })).data!.claimDevice).toMatchObject({ success: false, errorField: 'groupId' });
  expect((await claim({ code: r.body.code, deviceId: foreignDevice.id })).data!.claimDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  expect((await claim({ code: r.body.code, name: 'X', timeZone: 'Mars/Olympus' })).data!.claimDevice).toMatchObject({ success: false, errorField: 'timezone' });
  expect((await claim({ code: r.body.code, name: 'Ours' })).data!.claimDevice.success).toBe(true);
  // The other account's device is untouched and its key was handed to nobody.
  expect((await poll(r.body.secret)).body.registration_key).not.toBe(foreignDevice.registrationKey);
});

test('re-pairing an existing device keeps its configuration and hands the screen its key', async () => {
  const existing = await createDevice(f, { name: 'Kept', notes: 'keep me', timezone: 'Asia/Tokyo' });
  const r = await requestCode();
  const c = (await claim({ code: r.body.code, deviceId: existing.id, name: 'Ignored' })).data!.claimDevice;
  expect(c).toMatchObject({ success: true, device: { id: existing.id, name: 'Kept', notes: 'keep me', timezone: 'Asia/Tokyo' } });
  expect((await poll(r.body.secret)).body).toMatchObject({ status: 'claimed', device_id: existing.id, registration_key: existing.registrationKey });
});

test('guessing is rate-limited: past the budget of unknown codes the account gets RATE_LIMITED, even for a right code', async () => {
  const who = principal('acc-guess');
  const r = await requestCode();
  for (let i = 0; i < PAIRING_CLAIM_FAILURES_PER_WINDOW; i++) {
    expect((await claim({ code: 'AAAAAA', name: 'g' }, who)).data!.claimDevice.errorCode).toBe('NOT_FOUND');
  }
  expect((await claim({ code: r.body.code, name: 'g' }, who)).data!.claimDevice.errorCode).toBe('RATE_LIMITED');
  // Another account is not affected, and the code is still there.
  expect((await claim({ code: r.body.code, name: 'fine' })).data!.claimDevice.success).toBe(true);
});

test('codes per address are rate-limited (429 with Retry-After)', async () => {
  const statuses: number[] = [];
  for (let i = 0; i <= PAIRING_REQUESTS_PER_WINDOW; i++) statuses.push((await requestCode({})).status);
  expect(statuses).toContain(429);
  const res = await fetch(`${http.url}/player/pairings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
});

test('normalizePairingCode refuses what cannot be a code', () => {
  expect(normalizePairingCode('0O1IL2')).toBeNull();
  expect(normalizePairingCode('ACD')).toBeNull();
  expect(normalizePairingCode(' acd-efh ')).toBe('ACDEFH');
});

test('the policy is Devices_Edit: a viewer cannot claim', async () => {
  const r = await requestCode().catch(() => null);
  const viewer = { ...principal('acc-a'), policies: ['Devices_View' as const], isOwner: false, roles: ['Viewer'] };
  const c = await claim({ code: r?.body.code ?? 'ACDEFH', name: 'v' }, viewer as never);
  expect(c.errors?.[0]?.extensions?.code ?? c.data?.claimDevice?.errorCode).toBe('FORBIDDEN');
});
