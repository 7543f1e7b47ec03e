/**
 * REST drop-in compatibility: a client written against the reference OpenAPI
 * (/work/shared/reference/peer-rest-openapi.json) sends the reference's exact request shapes
 * (DeviceRequest with timeZone and tags "a,b", Command with name, DeviceCommand[] for bulk,
 * GroupRequest, JSON Patch against reference names, PascalCase list parameters) and reads the
 * reference's response types (tags a string, nested objects never null, reference statuses).
 */
import { harnessForTests } from './harness.js';

const h = harnessForTests();

type Json = Record<string, any>;

async function call(method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'x-service-apikey': h.key };
  if (body !== undefined) headers['content-type'] = type;
  const res = await fetch(`${h.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Reference Device: every member it declares has its declared type (nullable ones may be null). */
function expectReferenceDevice(d: Json) {
  for (const k of ['id', 'name', 'group_name', 'group_id', 'tags', 'timezone', 'registration_key', 'notes', 'entered_service']) {
    if (k in d) expect(d[k] === null || typeof d[k] === 'string').toBe(true);
  }
  expect(typeof d.is_online).toBe('boolean');
  for (const k of ['device_type', 'location', 'ping_data']) if (k in d) expect(typeof d[k]).toBe('object');
}

describe('devices with the reference shapes', () => {
  test('POST DeviceRequest (timeZone, tags string) -> 201 Device; PUT DeviceRequest -> 204; PATCH reference paths', async () => {
    const created = await call('POST', '/devices', {
      name: 'Ref screen',
      tags: 'lobby,landscape',
      timeZone: 'Europe/Paris',
      language_code: 'fr',
      mac_address: '00:11:22:33:44:55',
      location: { city: 'Paris', county: 'IDF', postal_code: '75001', latitude: 48.8 },
    });
    expect(created.status).toBe(201);
    expectReferenceDevice(created.body);
    expect(created.body).toMatchObject({ name: 'Ref screen', tags: 'lobby,landscape', timezone: 'Europe/Paris', location: { city: 'Paris', latitude: 48.8 } });
    const id = created.body.id as string;

    const put = await call('PUT', `/devices/${id}`, { name: 'Ref screen 2', tags: 'a,b', timeZone: 'Europe/Berlin' });
    expect(put.status).toBe(204);
    const read = await call('GET', `/devices/${id}`);
    expect(read.body).toMatchObject({ name: 'Ref screen 2', tags: 'a,b', timezone: 'Europe/Berlin' });
    expectReferenceDevice(read.body);

    const patch = await call(
      'PATCH',
      `/devices/${id}`,
      [
        { op: 'replace', path: '/tags', value: 'x,y' },
        { op: 'replace', path: '/timeZone', value: 'Europe/Oslo' },
      ],
      'application/json-patch+json',
    );
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ tags: 'x,y', timezone: 'Europe/Oslo' });
  });

  test('GET /devices with the reference parameter names', async () => {
    const r = await call('GET', '/devices?Take=2&Page=0&IsOnline=true');
    expect(r.status).toBe(200);
    expect(r.body.length).toBeLessThanOrEqual(2);
    for (const d of r.body) {
      expectReferenceDevice(d);
      expect(d.is_online).toBe(true);
    }
  });

  test('commands: Command[] with name -> 204; DeviceCommand[] bulk -> 204, an unknown device -> 404 naming it', async () => {
    const a = (await call('POST', '/devices', { name: 'Ref cmd 1' })).body;
    const b = (await call('POST', '/devices', { name: 'Ref cmd 2' })).body;
    expect((await call('POST', `/devices/${a.id}/commands`, [{ name: 'restart', arg: null }])).status).toBe(204);
    const bulk = await call('POST', '/devices/commands', [
      { deviceId: a.id, commands: [{ name: 'refresh' }] },
      { deviceId: b.id, commands: [{ name: 'volume', arg: '20' }] },
    ]);
    expect(bulk.status).toBe(204);
    const gql = await h.gql('query($a: String!, $b: String!) { a: deviceCommands(deviceId: $a) { command } b: deviceCommands(deviceId: $b) { command arg } }', {
      variables: { a: a.id, b: b.id },
    });
    expect(gql.body.data!.a.map((c: Json) => c.command).sort()).toEqual(['refresh', 'restart']);
    expect(gql.body.data!.b).toEqual([{ command: 'volume', arg: '20' }]);
    const unknown = await call('POST', '/devices/commands', [
      { deviceId: a.id, commands: [{ name: 'refresh' }] },
      { deviceId: 'no-such-device', commands: [{ name: 'reboot' }] },
    ]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.field).toBe('body[1].deviceId');
  });

  test('groups: GroupRequest -> 201 Group; PUT -> 204; list reads it', async () => {
    const g = await call('POST', '/devices/groups', { name: 'Ref group' });
    expect(g.status).toBe(201);
    expect(g.body).toMatchObject({ name: 'Ref group', count: 0, level: 0 });
    expect((await call('PUT', `/devices/groups/${g.body.id}`, { name: 'Ref group 2' })).status).toBe(204);
    expect((await call('GET', `/devices/groups?id=${g.body.id}&take=10&page=0`)).body).toEqual([
      expect.objectContaining({ id: g.body.id, name: 'Ref group 2' }),
    ]);
    expect((await call('DELETE', `/devices/groups/${g.body.id}`)).status).toBe(204);
  });
});

describe('account and users with the reference shapes', () => {
  test('GET /account has timeZone; PUT with timeZone -> 204', async () => {
    const before = (await call('GET', '/account')).body;
    expect(typeof before.timeZone).toBe('string');
    expect((await call('PUT', '/account', { timeZone: 'Europe/Madrid' })).status).toBe(204);
    expect((await call('GET', '/account')).body).toMatchObject({ timeZone: 'Europe/Madrid', timezone: 'Europe/Madrid' });
    expect((await call('PUT', '/account', { timeZone: before.timeZone })).status).toBe(204);
  });
  test('organizations carry timeZone; users the reference User members', async () => {
    const orgs = await call('GET', '/account/organizations');
    expect(orgs.status).toBe(200);
    for (const o of orgs.body) expect('timeZone' in o).toBe(true);
    const users = await call('GET', '/users?take=10&page=0');
    expect(users.status).toBe(200);
    for (const u of users.body) {
      expect(Array.isArray(u.role)).toBe(true);
      expect(typeof u.user_name).toBe('string');
      expect(u).toHaveProperty('mobile_phone', null);
    }
    expect((await call('GET', `/users/${users.body[0].id}`)).body.id).toBe(users.body[0].id);
  });
});
