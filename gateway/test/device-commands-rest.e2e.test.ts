/**
 * Device commands over REST: a send answers 204 (the reference) with a `Location` naming the queued
 * commands; `GET /devices/{id}/commands` lists them with their status as the player moves them on.
 */
import { createAccount, createApiKey, createUser, type IdentityService } from '@pylon/identity';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let device: { id: string; registration_key: string };
beforeAll(async () => {
  h = await startHarness();
  device = (await (await call('POST', '/devices', { name: 'Commands screen' })).json()) as typeof device;
}, 60_000);
afterAll(() => h.stop());

function call(method: string, path: string, body?: unknown, key = h.key): Promise<Response> {
  return fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { 'x-service-apikey': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
type Listed = { id: string; command: string; arg: string | null; status: string; device_id: string }[];

test('a send answers 204 with a Location that lists exactly the queued commands, then their status moves on', async () => {
  const sent = await call('POST', `/devices/${device.id}/commands`, [{ command: 'volume', arg: '40' }, { command: 'screenshot' }]);
  expect(sent.status).toBe(204);
  const location = sent.headers.get('location')!;
  expect(location).toMatch(new RegExp(`^/devices/${device.id}/commands\\?id=[^&]+&id=[^&]+$`));
  // An earlier command that the Location does not name.
  await call('POST', `/devices/${device.id}/commands`, [{ command: 'reboot' }]);

  const queued = (await (await call('GET', location)).json()) as Listed;
  expect(queued.map((c) => [c.command, c.arg, c.status, c.device_id]).sort()).toEqual([
    ['screenshot', null, 'Queued', device.id],
    ['volume', '40', 'Queued', device.id],
  ]);
  expect((await (await call('GET', `/devices/${device.id}/commands`)).json()) as Listed).toHaveLength(3);

  // The player takes them on its ping and acknowledges one.
  const ping = await fetch(`${h.baseUrl}/player/${device.registration_key}/ping`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(ping.status).toBe(200);
  const volume = queued.find((c) => c.command === 'volume')!;
  const ack = await fetch(`${h.baseUrl}/player/${device.registration_key}/commands/${volume.id}/ack`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'acknowledged' }),
  });
  expect(ack.status).toBeLessThan(300);
  const after = (await (await call('GET', location)).json()) as Listed;
  expect(Object.fromEntries(after.map((c) => [c.command, c.status]))).toEqual({ volume: 'Acknowledged', screenshot: 'Delivered' });
  const acknowledged = (await (await call('GET', `/devices/${device.id}/commands?status=Acknowledged`)).json()) as Listed;
  expect(acknowledged.map((c) => c.id)).toEqual([volume.id]);
});

test('bad input names the parameter; unknown and foreign devices are 404', async () => {
  const bad = await call('GET', `/devices/${device.id}/commands?status=Done`);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('status');
  expect((await call('GET', '/devices/no-such-device/commands')).status).toBe(404);

  const identity = h.subgraphs.identity as IdentityService;
  await createAccount(identity.repo, { id: 'commands-other', name: 'Other Co' });
  const user = await createUser(identity.repo, { accountId: 'commands-other', username: 'other@commands.example', roles: ['Owner', 'API'] });
  const { value } = await createApiKey(identity.repo, { accountId: 'commands-other', userId: user.id, name: 'other' });
  expect((await call('GET', `/devices/${device.id}/commands`, undefined, value)).status).toBe(404);
  expect((await call('POST', `/devices/${device.id}/commands`, [{ command: 'reboot' }], value)).status).toBe(404);
});

test('a JSON body sent without Content-Type is 415 naming the header to send, not "requestBody is required"', async () => {
  const res = await fetch(`${h.baseUrl}/devices/${device.id}/commands`, {
    method: 'POST',
    headers: { 'x-service-apikey': h.key, 'content-type': 'application/x-www-form-urlencoded' }, // what curl -d sends without -H
    body: JSON.stringify([{ command: 'reboot' }]),
  });
  expect(res.status).toBe(415);
  const { error } = (await res.json()) as { error: { code: string; message: string; field: string; request_id: string } };
  expect(error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: 'Content-Type' });
  expect(error.message).toContain('Content-Type: application/json');
  expect(error.message).toContain("'application/x-www-form-urlencoded'");
  // A request that really sent no body still hears that the body is required.
  const empty = await fetch(`${h.baseUrl}/devices/${device.id}/commands`, { method: 'POST', headers: { 'x-service-apikey': h.key } });
  expect(empty.status).toBe(400);
});

test('a schedule error names the REST field (start_time), not the GraphQL one', async () => {
  const playlist = (await (await call('POST', '/playlists', { name: 'Field names' })).json()) as { id: string };
  const res = await call('POST', '/schedules', { name: 'Bad time', playlist_id: playlist.id, devices: [{ id: device.id }], start_time: '25:99' });
  expect(res.status).toBe(400);
  const { error } = (await res.json()) as { error: { field: string; message: string } };
  expect(error.field).toBe('start_time');
  expect(error.message).not.toContain('startTime');
});
