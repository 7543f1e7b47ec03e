/**
 * The two conformance checks themselves (gateway/test/support/reference-conformance.ts at runtime,
 * rest-compat.ts over rest.yaml), on bodies and documents built here, so what they catch does not
 * depend on the state of our REST interface.
 */
import { coverage, sharedOperations } from './support/conformance-coverage.js';
import { checkRestCompat, compareWithReference } from './support/rest-compat.js';
import { DeclaredDeviations, ReferenceConformance } from './support/reference-conformance.js';
import { loadReference, matchTemplate, type OpenApi } from './support/reference-document.js';

const reference = loadReference();
const conformance = new ReferenceConformance(reference);
const check = (method: string, path: string, status: number, body: unknown, type = 'application/json; charset=utf-8') =>
  conformance.check(method, path, status, type, body === undefined ? undefined : JSON.stringify(body));

/** A device as the reference describes it: every property present. */
const device = () => ({
  id: 'd1',
  name: 'Lobby',
  group_name: null,
  group_id: null,
  tags: 'lobby,north',
  device_type: { id: 't', name: 'Android', manufacturer: null, device_caps: null },
  entered_service: '2024-01-02T03:04:05Z',
  last_service: null,
  timezone: 'Europe/Amsterdam',
  language_code: null,
  last_update: null,
  location: null,
  ping_data: null,
  registration_key: 'abcdefgh',
  encrypted_registration_key: null,
  mac_address: null,
  beacon: null,
  service_level: null,
  in_sync: true,
  serial_number: null,
  deactivated: null,
  notes: null,
  is_online: false,
});

describe('matching a request to the reference path', () => {
  const templates = Object.keys(reference.paths);
  test('literal segments win over parameters', () => {
    expect(matchTemplate(templates, '/devices/groups')).toBe('/devices/groups');
    expect(matchTemplate(templates, '/devices/pingdata')).toBe('/devices/pingdata');
    expect(matchTemplate(templates, '/devices/abc')).toBe('/devices/{id}');
    expect(matchTemplate(templates, '/devices/abc/commands')).toBe('/devices/{id}/commands');
    expect(matchTemplate(templates, '/devices/k123/snap')).toBe('/devices/{registrationKey}/snap');
  });
  test('paths the reference does not have are not checked', () => {
    expect(matchTemplate(templates, '/player/k/ping')).toBeUndefined();
    expect(check('GET', '/alerts', 200, [])).toBeUndefined();
    expect(check('POST', '/users', 200, {})).toBeUndefined();
  });
});

describe('validating a response against the reference', () => {
  test('a reference-shaped body passes; additional properties are allowed, $ref properties may be null', () => {
    expect(check('GET', '/devices/d1', 200, { ...device(), org_id: 'o1' })!.mismatches).toEqual([]);
    expect(check('GET', '/devices', 200, [device(), device()])!.mismatches).toEqual([]);
  });
  test('a wrong type names the path, status, JSON pointer and the expected type', () => {
    const v = check('GET', '/devices', 200, [device(), { ...device(), tags: ['lobby', 'north'] }])!;
    expect(v.op).toBe('GET /devices');
    expect(v.mismatches).toEqual([{ at: '/*/tags', message: 'GET /devices answered 200: at /1/tags the reference expects string|null, got array' }]);
  });
  test('OpenAPI 3.0 nullable, formats and nested $refs are honoured', () => {
    const d = { ...device(), is_online: null, entered_service: 'yesterday', location: { city: 3 } };
    const at = check('GET', '/devices/d1', 200, d)!.mismatches.map((m) => m.at);
    expect(at).toEqual(expect.arrayContaining(['/is_online', '/entered_service', '/location/city']));
    expect(check('GET', '/devices/d1', 200, d)!.mismatches.find((m) => m.at === '/is_online')!.message).toMatch(/expects boolean, got null/);
  });
  test('a property the reference lists must be there (a renamed one shows up as missing)', () => {
    const { timeZone: _, ...rest } = {
      id: 'a',
      name: 'A',
      tags: null,
      business_name: null,
      address_1: null,
      address_2: null,
      city: null,
      state: null,
      postal_code: null,
      country: null,
      phone: null,
      fax: null,
      primary_contact_id: null,
      secondary_contact_id: null,
      created_on: null,
      timeZone: 'UTC',
      logo_url: null,
    };
    const v = check('GET', '/account', 200, { ...rest, timezone: 'UTC' })!;
    expect(v.mismatches).toEqual([
      { at: '/timeZone', message: 'GET /account answered 200: at /timeZone the reference expects string|null, got no such property' },
    ]);
  });
  test('a success status the reference does not declare is a mismatch; error statuses are ours to shape', () => {
    expect(check('PUT', '/devices/d1', 200, device())!.mismatches).toEqual([
      { at: 'status', message: 'PUT /devices/{id} answered 200; the reference answers 204' },
    ]);
    expect(check('PUT', '/devices/d1', 204, undefined, '')!.mismatches).toEqual([]);
    expect(check('GET', '/devices/d1', 404, { error: { code: 'NOT_FOUND' } })!.mismatches).toEqual([]);
  });
  test('a JSON response must be JSON', () => {
    expect(check('GET', '/devices/d1', 200, device(), 'text/html')!.mismatches.map((m) => m.at)).toEqual(['content-type']);
  });
});

/** Operations of the reference under `paths`, as if they were ours (a fully conforming rest.yaml). */
const conformingCopy = (paths: string[]): OpenApi => {
  const copy = structuredClone(reference);
  copy.paths = Object.fromEntries(paths.map((p) => [p, copy.paths[p]!]));
  return copy;
};

describe('rest.yaml compatibility with the reference (scripts/check-rest-compat.ts)', () => {
  const paths = ['/devices', '/devices/{id}', '/devices/groups', '/devices/{id}/commands', '/account'];
  test('a conforming document has no problems', () => {
    expect(compareWithReference(conformingCopy(paths), reference)).toEqual([]);
  });
  test('catches tags as an array, in responses and request bodies', () => {
    const broken = conformingCopy(paths);
    broken.components!.schemas!.Device.properties.tags = { type: 'array', items: { type: 'string' } };
    broken.components!.schemas!.DeviceRequest.properties.tags = { type: 'array', items: { type: 'string' } };
    const found = compareWithReference(broken, reference).map((p) => `${p.op} | ${p.at} | ${p.message}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'GET /devices | response 200 /*/tags | the reference answers string|null, ours array',
        'GET /devices/{id} | response 200 /tags | the reference answers string|null, ours array',
        'POST /devices | response 201 /tags | the reference answers string|null, ours array',
        'POST /devices | request application/json /tags | the reference sends string|null, ours accepts array',
      ]),
    );
  });
  test('catches a response member that may be null where the reference scalar is not, even when declared a deviation', () => {
    const broken = conformingCopy(paths);
    broken.components!.schemas!.PingData.properties.bytes_received = {
      'x-reference-deviation': 'null when not reported',
      anyOf: [{ type: 'integer' }, { type: 'null' }],
    };
    const found = compareWithReference(broken, reference).map((p) => `${p.op} | ${p.at} | ${p.message}`);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^GET \/devices \| response 200 \/\*\/ping_data\/bytes_received \| ours may answer null where the reference's integer/),
      ]),
    );
  });
  test('catches renamed and missing properties, parameters, statuses and enum values', () => {
    const broken = conformingCopy([...paths, '/playlists']);
    const account = broken.components!.schemas!.Account.properties;
    account.timezone = account.timeZone;
    delete account.timeZone;
    broken.paths['/devices']!.get.parameters[1].name = 'take';
    broken.paths['/devices/{id}']!.put.responses = { '200': { description: 'OK' } };
    broken.components!.schemas!.PlaylistType.enum = [...broken.components!.schemas!.PlaylistType.enum, 'Video'];
    const found = compareWithReference(broken, reference).map((p) => `${p.op} | ${p.at}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'GET /account | response 200 /timeZone',
        'PUT /account | request application/json /timeZone',
        'GET /devices | parameter query Take',
        'PUT /devices/{id} | response 204',
        'GET /playlists | response 200 /*/type',
      ]),
    );
  });
  test('an operation that never succeeds needs a deviation on the answer it gives instead (POST /report/adhawk: 501)', () => {
    const ours = conformingCopy(['/report/adhawk']);
    const error = { description: 'not offered', content: { 'application/json': { schema: { type: 'object' } } } };
    ours.paths['/report/adhawk']!.post.responses = { '501': error };
    expect(compareWithReference(ours, reference).map((p) => `${p.op} | ${p.at} | ${p.message}`)).toEqual([
      'POST /report/adhawk | response 200 | the reference answers 200; ours answers no success',
    ]);
    ours.paths['/report/adhawk']!.post.responses = { '501': { ...error, 'x-reference-deviation': 'not offered (test)' } };
    expect(compareWithReference(ours, reference)).toEqual([]);
    // The request body is still compared.
    ours.components!.schemas!.AdHawkDatasetPostBody.properties.dataset_typo = ours.components!.schemas!.AdHawkDatasetPostBody.properties.dataset_type;
    delete ours.components!.schemas!.AdHawkDatasetPostBody.properties.dataset_type;
    expect(compareWithReference(ours, reference).map((p) => p.at)).toContain('request application/json-patch+json /dataset_type');
  });
  test('a declared x-reference-deviation is allowed; allow-list entries no longer found are stale', () => {
    const ours = conformingCopy(paths);
    ours.components!.schemas!.Device.properties.tags = { type: 'array', items: { type: 'string' }, 'x-reference-deviation': 'our spec says so (test)' };
    expect(compareWithReference(ours, reference).filter((p) => p.at.endsWith('/tags') && p.at.startsWith('response'))).toEqual([]);
    const gaps = [{ op: 'GET /devices', at: 'response 200 /*/tags' }];
    expect(checkRestCompat(conformingCopy(paths), reference, gaps)).toEqual({ problems: [], stale: gaps });
  });
});

describe('coverage of the shared operations (scripts/check-rest-conformance.ts)', () => {
  test('shared operations: both documents have them and ours can succeed (a documented 501 has no success to validate)', () => {
    const ours = conformingCopy(['/account', '/report/adhawk']);
    expect(sharedOperations(ours, reference)).toEqual(expect.arrayContaining(['GET /account', 'POST /report/adhawk']));
    ours.paths['/report/adhawk']!.post.responses = { '501': { description: 'not offered' } };
    expect(sharedOperations(ours, reference)).not.toContain('POST /report/adhawk');
    expect(sharedOperations(ours, reference)).toContain('GET /account');
  });
  test('an operation counts once a success response of it was validated; unseen allow-list entries are stale', () => {
    const records = [
      { op: 'GET /devices', status: 200, gaps: ['GET /devices /*/tags'], failures: [] },
      { op: 'GET /devices/{id}', status: 404, gaps: [], failures: [] },
    ];
    const gaps = [
      { op: 'GET /devices', at: '/*/tags' },
      { op: 'GET /account', at: '/timeZone' },
    ];
    expect(coverage(['GET /devices', 'GET /devices/{id}'], records, gaps)).toEqual({
      covered: ['GET /devices'],
      unexercised: ['GET /devices/{id}'],
      stale: [{ op: 'GET /account', at: '/timeZone' }],
      failures: [],
    });
  });
});

describe('deviations rest.yaml declares are not runtime mismatches', () => {
  // Ours: GET /devices/{x}/pingdata with a deviation on bytes_received (inside an anyOf wrapper
  // around a $ref'd schema), and POST /devices/commands whose 200 response declares one.
  const ours: OpenApi = {
    openapi: '3.1.0',
    paths: {
      '/devices/{key}/pingdata': {
        get: { responses: { '200': { content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/Ping' }, { type: 'null' }] } } } } } },
      },
      '/devices/commands': {
        post: {
          responses: {
            '200': { 'x-reference-deviation': 'our own body', content: { 'application/json': { schema: { type: 'object' } } } },
            '204': { description: 'ok' },
          },
        },
      },
      '/devices': {
        get: {
          responses: {
            '200': {
              content: {
                'application/json': { schema: { type: 'array', items: { type: 'object', properties: { ping_data: { $ref: '#/components/schemas/Ping' } } } } },
              },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Ping: {
          type: 'object',
          properties: {
            bytes_received: { 'x-reference-deviation': 'null when not reported', anyOf: [{ type: 'integer' }, { type: 'null' }] },
            cpu_usage: { type: 'number' },
          },
        },
      },
    },
  };
  const declared = new DeclaredDeviations(ours);
  test('a pointer through $ref, anyOf and array items reaches the declaring schema', () => {
    expect(declared.covers('GET', '/devices/{registrationKey}/pingdata', 200, '/bytes_received')).toBe(true);
    expect(declared.covers('GET', '/devices', 200, '/*/ping_data/bytes_received')).toBe(true);
    expect(declared.covers('GET', '/devices', 200, '/*/ping_data/cpu_usage')).toBe(false);
    expect(declared.covers('GET', '/devices/{registrationKey}/pingdata', 200, '/transfer_rate')).toBe(false);
  });
  test('a status is declared by our response for it; other statuses and operations are not', () => {
    expect(declared.covers('POST', '/devices/commands', 200, 'status')).toBe(true);
    expect(declared.covers('POST', '/devices/commands', 201, 'status')).toBe(false);
    expect(declared.covers('POST', '/devices/{id}/track', 202, 'status')).toBe(false);
  });
  test('ReferenceConformance drops declared mismatches and keeps the others', () => {
    const c = new ReferenceConformance(reference, ours);
    const ping = {
      type: null,
      snap: null,
      player_version: null,
      os_version: null,
      cpu_usage: 1,
      memory_usage: 1,
      mac_address: null,
      disk_usage: 1,
      timestamp: '2024-01-02T03:04:05Z',
      bytes_received: '12',
      transfer_rate: null,
      ip_address: null,
      latitude: null,
      longitude: null,
      current_schedule: null,
      uptime: null,
      external_ip_address: null,
      download_pct_complete: null,
      meta: null,
      cpu_temperature: null,
    };
    const v = c.check('GET', '/devices/k/pingdata', 200, 'application/json', JSON.stringify(ping))!;
    expect(v.mismatches.map((m) => m.at)).toEqual(['/transfer_rate']);
    expect(c.check('POST', '/devices/commands', 200, 'application/json', '{}')!.mismatches).toEqual([]);
    // No deviation excuses a null where the reference's scalar is non-nullable (issue 20, finding 10):
    // a client generated in C# or Java cannot put null into a long.
    const nulls = c.check('GET', '/devices/k/pingdata', 200, 'application/json', JSON.stringify({ ...ping, bytes_received: null, transfer_rate: 0 }))!;
    expect(nulls.mismatches).toEqual([
      {
        at: '/bytes_received',
        message: expect.stringMatching(/expects integer \(int64\), got null/),
        nullForNonNullable: true,
      },
    ]);
  });
});
