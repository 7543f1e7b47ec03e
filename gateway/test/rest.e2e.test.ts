/**
 * The current REST interface through real HTTP against the all-in-one server (demo data: one
 * account, eight devices in three groups, six online).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@pylon/kit';
import { createApiKey, createUser, type IdentityService } from '@pylon/identity';
import { startAllInOne, type AllInOne } from '../../launcher/src/all-in-one.js';
import { allInOneEnv } from '../../launcher/src/all-in-one.config.js';
import { registerRestOrigin } from './support/reference-conformance.js';
import { otherAccountKey } from './other-account.js';

const KEY = 'rest-e2e-bootstrap-key-0123456789';

interface RestDevice {
  id: string;
  name: string;
  is_online: boolean;
  tags: string[];
  device_type: { id: string; name: string; manufacturer: string } | null;
  ping_data: Record<string, unknown> | null;
  location: Record<string, unknown> | null;
  group_id: string | null;
  group_name: string | null;
  org_id: string | null;
  created_on: string | null;
  updated_on: string | null;
}
interface RestError {
  error: { code: string; message: string; field?: string; details?: { field?: string; message: string }[]; request_id?: string };
}

let app: AllInOne;
let dataDir: string;
let all: RestDevice[];

const get = (path: string, headers: Record<string, string> = { 'X-Service-ApiKey': KEY }) => fetch(`${app.baseUrl}${path}`, { headers });
async function json<T>(path: string, headers?: Record<string, string>): Promise<{ status: number; body: T; res: Response }> {
  const res = await get(path, headers);
  return { status: res.status, body: (await res.json()) as T, res };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pylon-rest-e2e-'));
  const env = loadConfig(allInOneEnv, {
    SIGNAGE_DATA_DIR: dataDir,
    PORT: '0',
    LEGACY_PORT: '0',
    LOG_LEVEL: 'silent',
    SIGNAGE_BOOTSTRAP_API_KEY: KEY,
    SIGNAGE_SIMULATOR: 'false',
  });
  app = await startAllInOne(env);
  registerRestOrigin(app.baseUrl);
  all = (await json<RestDevice[]>('/devices')).body;
}, 60_000);
afterAll(async () => {
  await app?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('GET /devices', () => {
  test('with the X-Service-ApiKey header: the demo devices in snake_case', async () => {
    const { status, body, res } = await json<RestDevice[]>('/devices');
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(body).toHaveLength(8);
    const d = body[0]!;
    // Every member of the reference's Device (and our spec's), nested objects included.
    expect(Object.keys(d).sort()).toEqual([
      'beacon',
      'created_on',
      'deactivated',
      'device_type',
      'encrypted_registration_key',
      'entered_service',
      'group_id',
      'group_name',
      'id',
      'in_sync',
      'is_online',
      'language_code',
      'last_service',
      'last_update',
      'location',
      'mac_address',
      'name',
      'notes',
      'org_id',
      'ping_data',
      'registration_key',
      'serial_number',
      'service_level',
      'tags',
      'timezone',
      'updated_on',
    ]);
    expect(Object.keys(d.ping_data!).sort()).toEqual([
      'bytes_received',
      'cpu_temperature',
      'cpu_usage',
      'current_schedule',
      'disk_usage',
      'download_pct_complete',
      'external_ip_address',
      'ip_address',
      'latitude',
      'longitude',
      'mac_address',
      'memory_usage',
      'meta',
      'os_version',
      'player_version',
      'snap',
      'timestamp',
      'transfer_rate',
      'type',
      'uptime',
    ]);
    expect(Object.keys(d.location!).sort()).toEqual(['address', 'city', 'country', 'county', 'latitude', 'longitude', 'postal_code', 'state']);
    expect(Object.keys(d.device_type!).sort()).toEqual(['device_caps', 'id', 'manufacturer', 'name']);
    expect(typeof d.tags).toBe('string');
    expect(d.created_on).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(d.ping_data!.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  test('with the api_key query parameter', async () => {
    const { status, body } = await json<RestDevice[]>(`/devices?api_key=${KEY}`, {});
    expect(status).toBe(200);
    expect(body.map((d) => d.id)).toEqual(all.map((d) => d.id));
  });

  test('take/page: 0-based pages are disjoint and follow the full order', async () => {
    const p0 = (await json<RestDevice[]>('/devices?take=2&page=0')).body.map((d) => d.id);
    const p1 = (await json<RestDevice[]>('/devices?take=2&page=1')).body.map((d) => d.id);
    expect(p0).toHaveLength(2);
    expect(p1).toHaveLength(2);
    expect(p0.filter((id) => p1.includes(id))).toEqual([]);
    expect([...p0, ...p1]).toEqual(all.slice(0, 4).map((d) => d.id));
    expect((await json<RestDevice[]>('/devices?take=2&page=4')).body).toEqual([]);
  });

  test('group_id takes several values (repeated parameter)', async () => {
    const groups = [...new Set(all.map((d) => d.group_id!))].sort();
    expect(groups.length).toBe(3);
    const [a, b] = groups as [string, string];
    const one = (await json<RestDevice[]>(`/devices?group_id=${encodeURIComponent(a)}`)).body;
    expect(one.length).toBe(all.filter((d) => d.group_id === a).length);
    expect(one.every((d) => d.group_id === a)).toBe(true);
    const two = (await json<RestDevice[]>(`/devices?group_id=${encodeURIComponent(a)}&group_id=${encodeURIComponent(b)}`)).body;
    expect(two.length).toBe(all.filter((d) => d.group_id === a || d.group_id === b).length);
    expect(two.every((d) => d.group_id === a || d.group_id === b)).toBe(true);
  });

  test('group_name filter', async () => {
    const { body } = await json<RestDevice[]>(`/devices?group_name=${encodeURIComponent('Lobby screens')}`);
    expect(body.length).toBeGreaterThan(0);
    expect(body.every((d) => d.group_name === 'Lobby screens')).toBe(true);
  });

  test('is_online=true / false', async () => {
    const online = (await json<RestDevice[]>('/devices?is_online=true')).body;
    const offline = (await json<RestDevice[]>('/devices?is_online=false')).body;
    expect(online).toHaveLength(6);
    expect(offline).toHaveLength(2);
    expect(online.every((d) => d.is_online)).toBe(true);
    expect(offline.every((d) => !d.is_online)).toBe(true);
  });

  test('id and device_type_id filters', async () => {
    const target = all[3]!;
    expect((await json<RestDevice[]>(`/devices?id=${encodeURIComponent(target.id)}`)).body.map((d) => d.id)).toEqual([target.id]);
    const android = (await json<RestDevice[]>('/devices?device_type_id=dt-android')).body;
    expect(android).toHaveLength(4);
    expect(android.every((d) => d.device_type?.id === 'dt-android')).toBe(true);
  });

  test('include_snap adds snap', async () => {
    const { body } = await json<(RestDevice & { snap?: unknown })[]>('/devices?include_snap=true&take=1');
    expect(body[0]).toHaveProperty('snap');
    expect(all[0]).not.toHaveProperty('snap');
  });
});

describe('GET /devices/{id}', () => {
  test('200 with the same record the list shows', async () => {
    const target = all[5]!;
    const { status, body } = await json<RestDevice>(`/devices/${encodeURIComponent(target.id)}`);
    expect(status).toBe(200);
    expect(body).toEqual(target);
  });
  test('404 JSON for an unknown id', async () => {
    const { status, body } = await json<RestError>('/devices/no-such-device');
    expect(status).toBe(404);
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.error.message).toContain('no-such-device');
  });
  test("404 for another account's device (object-level authorization)", async () => {
    const value = await otherAccountKey(app, 'rest-e2e-other', 'other@other.example');
    const foreign = await json<RestError>(`/devices/${encodeURIComponent(all[0]!.id)}`, { 'X-Service-ApiKey': value });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    expect((await json<RestDevice[]>('/devices', { 'X-Service-ApiKey': value })).body).toEqual([]);
  });
});

describe('GET /account', () => {
  test('the snake_case account record', async () => {
    const { status, body } = await json<Record<string, unknown>>('/account');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: 'demo-account',
      name: 'Demo Signage Co',
      business_name: 'Demo Signage Company B.V.',
      address_1: 'Keizersgracht 1',
      address_2: null,
      city: 'Amsterdam',
      state: 'NH',
      postal_code: '1015 CJ',
      country: 'NL',
      phone: '+31 20 000 0000',
      fax: null,
      primary_contact_id: 'demo-owner',
      secondary_contact_id: null,
      timezone: 'Europe/Amsterdam',
    });
    expect(body.created_on).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // The only camelCase key is the reference's own spelling of the time zone.
    expect(Object.keys(body).filter((k) => /[A-Z]/.test(k))).toEqual(['timeZone']);
  });
});

describe('authentication and authorization', () => {
  test('no credentials: 401 JSON', async () => {
    const { status, body, res } = await json<RestError>('/devices', {});
    expect(status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(body.error.code).toBe('UNAUTHENTICATED');
  });
  test('wrong key: 401 JSON', async () => {
    const { status, body } = await json<RestError>('/devices', { 'X-Service-ApiKey': 'wrong-wrong-wrong-wrong-wrong' });
    expect(status).toBe(401);
    expect(body.error.code).toBe('UNAUTHENTICATED');
    expect((await json<RestError>('/account?api_key=wrong-wrong-wrong-wrong', {})).status).toBe(401);
  });
  test('a key whose user lacks Devices_View: 403', async () => {
    const identity = app.subgraphs.identity as unknown as IdentityService;
    const user = await createUser(identity.repo, { accountId: 'demo-account', username: 'api-only@demo.example', roles: ['API'] });
    const { value } = await createApiKey(identity.repo, { accountId: 'demo-account', userId: user.id, name: 'api only' });
    const { status, body } = await json<RestError>('/devices', { 'X-Service-ApiKey': value });
    expect(status).toBe(403);
    expect(body.error.code).toBe('FORBIDDEN');
  });
});

describe('one code per kind of fault; a malformed body names the position (issue 35)', () => {
  const post = (path: string, body: string) =>
    fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { 'X-Service-ApiKey': KEY, 'content-type': 'application/json' }, body });
  test('REST: malformed JSON and a use case refusing the input both answer VALIDATION_FAILED; the message has the parser position', async () => {
    const malformed = await post('/devices', '{"name": "A",\n "timezone": }');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as RestError).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'the body is not valid JSON at position 27 (line 2, column 14): expected a value, found "}"',
    });
    // Found by the devices use case (BAD_USER_INPUT in GraphQL), not by the OpenAPI check.
    const zone = await post('/devices', JSON.stringify({ name: 'A', timezone: 'Mars/Olympus_Mons' }));
    expect(zone.status).toBe(400);
    expect(((await zone.json()) as RestError).error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'timezone' });
  });
  test('GraphQL: a malformed body names the position too', async () => {
    const r = await post('/graphql', '{"query": "{ account { id } }",}');
    expect(r.status).toBe(400);
    const body = (await r.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]).toMatchObject({
      message: 'the request body is not valid JSON at position 31 (line 1, column 32): expected a property name in double quotes, found "}"',
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

describe('validation names the parameter', () => {
  test.each([
    ['take=-1', 'take'],
    ['page=x', 'page'],
    ['take=100000', 'take'],
    ['is_online=perhaps', 'is_online'],
    ['groupId=abc', 'groupId'],
  ])('%s -> 400 naming %s', async (qs, field) => {
    const { status, body } = await json<RestError>(`/devices?${qs}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.field).toBe(field);
    expect(body.error.message).toContain(field);
  });
});

describe('HTTP surface', () => {
  test('unknown path: 404 JSON', async () => {
    const { status, body } = await json<RestError>('/no/such/endpoint');
    expect(status).toBe(404);
    expect(body.error.code).toBe('NOT_FOUND');
  });
  test('wrong method: 405 JSON with Allow', async () => {
    const res = await fetch(`${app.baseUrl}/account`, { method: 'DELETE', headers: { 'X-Service-ApiKey': KEY } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(((await res.json()) as RestError).error.code).toBe('METHOD_NOT_ALLOWED');
  });
  test('CORS preflight from another origin: allowed, never with credentials', async () => {
    const res = await fetch(`${app.baseUrl}/devices`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-service-apikey' },
    });
    expect(res.status).toBeLessThan(300);
    expect(['*', 'https://app.example']).toContain(res.headers.get('access-control-allow-origin'));
    expect(res.headers.get('access-control-allow-credentials')).not.toBe('true');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-service-apikey');
    const actual = await get('/devices?take=1', { 'X-Service-ApiKey': KEY, Origin: 'https://app.example' });
    expect(actual.headers.get('access-control-allow-origin')).toBeTruthy();
    expect(actual.headers.get('access-control-allow-credentials')).not.toBe('true');
  });
  test('/openapi.json and /openapi.yaml are served without credentials', async () => {
    const res = await fetch(`${app.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.paths['/devices']?.get?.operationId).toBe('listDevices');
    expect(doc.paths['/devices/{id}']?.get?.operationId).toBe('getDevice');
    expect(doc.paths['/account']?.get?.operationId).toBe('getAccount');
    const yaml = await fetch(`${app.baseUrl}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(await yaml.text()).toContain('operationId: listDevices');
  });
  test('errors carry the request id; paths owned by the gateway still work', async () => {
    const res = await get('/devices?take=-1', { 'X-Service-ApiKey': KEY, 'X-Request-Id': 'rest-e2e-1' });
    expect(((await res.json()) as RestError).error.request_id).toBe('rest-e2e-1');
    expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
    const gql = await fetch(`${app.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-ApiKey': KEY },
      body: JSON.stringify({ query: '{ device(limit: 1) { id } }' }),
    });
    expect(gql.status).toBe(200);
  });
});
