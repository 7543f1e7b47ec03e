/**
 * The facade alone, in front of a scripted GatewayClient: routing, validation, credentials,
 * variable mapping and error mapping. The real gateway is covered by gateway/test/rest.e2e.test.ts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger, type CallerCredentials, type GatewayClient, type GatewayRequest, type GatewayResult } from '@pylon/kit';
import { createRestFacade } from '../src/index.js';

type Script = (req: GatewayRequest, caller: CallerCredentials) => GatewayResult;

const DEVICE = {
  id: 'd1',
  name: 'Lobby 1',
  isOnline: true,
  tags: ['landscape'],
  deviceType: { id: 'dt', name: 'Android Player', manufacturer: 'Generic' },
  pingData: { cpuUsage: 1, memoryUsage: 2, diskUsage: 3, playerVersion: '4.2.0', ipAddress: '10.0.0.1', timestamp: '2025-01-01T00:00:00Z' },
  location: { city: 'Lyon', state: 'ARA', country: 'FR', latitude: 45.7, longitude: 4.8 },
  groupId: 'g1',
  groupName: 'Lobby',
  orgId: null,
  snap: null,
  createdOn: '2025-01-01T00:00:00Z',
  updatedOn: '2025-01-02T00:00:00Z',
};

let server: Server;
let base: string;
let script: Script;
const calls: { req: GatewayRequest; caller: CallerCredentials }[] = [];

beforeAll(async () => {
  const client: GatewayClient = {
    async execute<T>(req: GatewayRequest, caller: CallerCredentials) {
      calls.push({ req, caller });
      return script(req, caller) as GatewayResult<T>;
    },
  };
  const app = express();
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(await createRestFacade({ client, logger: createLogger({ level: 'silent' }), maxBodyBytes: 1000 }));
  app.use((_req, res) => {
    res.status(418).send('fell through');
  });
  server = await new Promise<Server>((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  calls.length = 0;
  script = (req) => ({
    status: 200,
    data: req.operationName === 'getAccount' ? { account: { id: 'a', address1: 'x', postalCode: '1' } } : { device: [DEVICE] },
  });
});

const get = (path: string, headers: Record<string, string> = { 'x-service-apikey': 'k' }) => fetch(`${base}${path}`, { headers });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string; field?: string; details?: unknown[] } }).error;

describe('mapping', () => {
  test('GET /devices: params -> variables, body in snake_case', async () => {
    const res = await get('/devices?take=5&page=2&group_id=a&group_id=b&is_online=false&device_type_id=dt&include_snap=true');
    expect(res.status).toBe(200);
    expect(calls[0]?.req.operationName).toBe('listDevices');
    // limit: take + 1, the look-ahead item that tells whether a next page exists (Link rel="next").
    expect(calls[0]?.req.variables).toEqual({ limit: 6, offset: 10, groupId: ['a', 'b'], isOnline: false, deviceTypeId: ['dt'], includeSnap: true });
    expect(calls[0]?.caller).toMatchObject({ apiKey: 'k', via: 'rest' });
    const [d] = (await res.json()) as Record<string, any>[];
    expect(d).toMatchObject({
      id: 'd1',
      is_online: true,
      device_type: { manufacturer: 'Generic' },
      ping_data: { cpu_usage: 1, ip_address: '10.0.0.1' },
      group_id: 'g1',
      created_on: '2025-01-01T00:00:00Z',
      snap: null,
    });
  });
  test('defaults come from the document; snap only when asked', async () => {
    const res = await get('/devices?group_id=only');
    expect(calls[0]?.req.variables).toEqual({ limit: 101, offset: 0, groupId: ['only'], includeSnap: false });
    expect(((await res.json()) as unknown[])[0]).not.toHaveProperty('snap');
  });
  test('api_key query parameter is a credential, not a parameter; header wins', async () => {
    expect((await get('/devices?api_key=q', {})).status).toBe(200);
    expect(calls[0]?.caller.apiKey).toBe('q');
    await get('/devices?api_key=q', { 'x-service-apikey': 'h' });
    expect(calls[1]?.caller.apiKey).toBe('h');
    await get('/devices', { authorization: 'Bearer tok' });
    expect(calls[2]?.caller).toMatchObject({ bearer: 'tok', apiKey: undefined });
  });
  test('GET /account renames address1 -> address_1', async () => {
    expect(await (await get('/account')).json()).toEqual({ id: 'a', address_1: 'x', postal_code: '1', tags: null, logo_url: null });
  });
  test('GET /devices/{id}: empty list -> 404 naming the id', async () => {
    script = () => ({ status: 200, data: { device: [] } });
    const res = await get('/devices/nope%20x');
    expect(calls[0]?.req.variables).toEqual({ id: 'nope x' });
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toMatchObject({ code: 'NOT_FOUND', message: "device 'nope x' was not found" });
  });
  test('HEAD is answered like GET, without a body', async () => {
    const res = await fetch(`${base}/devices`, { method: 'HEAD', headers: { 'x-service-apikey': 'k' } });
    expect(res.status).toBe(200);
  });
});

describe('gateway errors -> statuses', () => {
  const cases: [string, number, string][] = [
    ['UNAUTHENTICATED', 401, 'UNAUTHENTICATED'],
    ['FORBIDDEN', 403, 'FORBIDDEN'],
    ['NOT_FOUND', 404, 'NOT_FOUND'],
    // One code per kind of fault on REST (issue 35): input the request got wrong is VALIDATION_FAILED.
    ['BAD_USER_INPUT', 400, 'VALIDATION_FAILED'],
    ['CONFLICT', 409, 'DUPLICATE_KEY'],
    ['SERVICE_UNAVAILABLE', 503, 'UNAVAILABLE'],
    ['INTERNAL_SERVER_ERROR', 500, 'INTERNAL'],
    ['GRAPHQL_VALIDATION_FAILED', 500, 'INTERNAL'],
  ];
  test.each(cases)('%s -> %d %s', async (gqlCode, status, code) => {
    script = () => ({ status: 200, data: null, errors: [{ message: 'secret detail', extensions: { code: gqlCode } }] });
    const res = await get('/devices');
    expect(res.status).toBe(status);
    const e = await errorOf(res);
    expect(e.code).toBe(code);
    if (status === 500) expect(e.message).toBe('internal error');
  });
  test('no usable code: the gateway status decides (a 403 stays a 403), except for document defects', async () => {
    script = () => ({ status: 403, data: { device: null }, errors: [{ message: 'internal error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    const res = await get('/devices');
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe('FORBIDDEN');
    script = () => ({ status: 400, errors: [{ message: 'Cannot query field', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    expect((await get('/devices')).status).toBe(500);
  });
  test('a GraphQL argument named in the error comes back as the REST parameter', async () => {
    script = () => ({
      status: 200,
      data: null,
      errors: [{ message: 'offset must be at most 10000000', extensions: { code: 'BAD_USER_INPUT', field: 'offset' } }],
    });
    expect(await errorOf(await get('/devices?take=1000&page=9999999'))).toMatchObject({ code: 'VALIDATION_FAILED', field: 'page' });
  });
  test('page * take beyond a GraphQL Int is refused before the gateway', async () => {
    const res = await get('/devices?take=1000&page=10000000');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).field).toBe('page');
    expect(calls).toHaveLength(0);
  });
});

describe('validation names the parameter', () => {
  test.each([
    ['take=-1', 'take', 'take must be >= 0'],
    ['take=100000', 'take', 'take must be <= 1000'],
    ['take=1.5', 'take', 'take must be integer'],
    ['page=x', 'page', 'page must be integer'],
    ['is_online=maybe', 'is_online', 'is_online must be boolean'],
    ['group_id=', 'group_id', 'group_id[0] must NOT have fewer than 1 characters'],
    ['take=1&take=2', 'take', 'take must be integer'],
    ['groupId=a', 'groupId', "unknown query parameter 'groupId'"],
    ['__proto__=x', '__proto__', "unknown query parameter '__proto__'"],
  ])('%s', async (qs, field, message) => {
    const res = await get(`/devices?${qs}`);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ code: 'VALIDATION_FAILED', field, message });
    expect(calls).toHaveLength(0);
  });
  test('several problems are all listed', async () => {
    const e = await errorOf(await get('/devices?take=-1&page=x'));
    expect(e.details).toHaveLength(2);
  });
});

describe('HTTP surface', () => {
  test('no credentials -> 401 JSON before validation', async () => {
    const res = await get('/devices?take=-1', {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/Bearer/);
    expect((await errorOf(res)).code).toBe('UNAUTHENTICATED');
    expect(calls).toHaveLength(0);
  });
  test('unknown path -> 404 JSON; wrong method -> 405 with Allow', async () => {
    const nf = await get('/nope');
    expect(nf.status).toBe(404);
    expect((await errorOf(nf)).code).toBe('NOT_FOUND');
    const na = await fetch(`${base}/devices/x`, { method: 'POST', headers: { 'x-service-apikey': 'k' } });
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toBe('GET, PUT, DELETE, PATCH, HEAD, OPTIONS');
    expect((await errorOf(na)).code).toBe('METHOD_NOT_ALLOWED');
  });
  test('oversized and malformed JSON bodies', async () => {
    const big = await fetch(`${base}/devices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-apikey': 'k' },
      body: JSON.stringify({ x: 'y'.repeat(2000) }),
    });
    expect(big.status).toBe(413);
    expect((await errorOf(big)).code).toBe('PAYLOAD_TOO_LARGE');
    const bad = await fetch(`${base}/devices`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-apikey': 'k' }, body: '{"x":' });
    expect(bad.status).toBe(400);
  });
  test('operations another component serves (x-pylon-handler: player) are documented, not answered here', async () => {
    const res = await fetch(`${base}/player/some-key-123/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).message).toMatch(/player API/);
    expect(calls).toHaveLength(0);
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(doc.paths['/player/{registrationKey}/ping']?.post?.['x-pylon-handler']).toBe('player');
  });
  test('malformed percent-encoding in the path -> 400, not 500', async () => {
    expect((await get('/devices/%E0%A4%A')).status).toBe(400);
  });
  test('paths owned by others pass through', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/graphql`)).status).toBe(418);
    expect((await fetch(`${base}/metrics`, { method: 'OPTIONS' })).status).toBe(418);
  });
  test('CORS preflight: any origin, never with credentials', async () => {
    const res = await fetch(`${base}/devices`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-service-apikey' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-service-apikey');
  });
  test('the document is served as JSON and YAML', async () => {
    const json = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(json.openapi).toBe('3.1.0');
    expect(Object.keys(json.paths)).toEqual(expect.arrayContaining(['/devices', '/devices/{id}', '/account']));
    const yaml = await fetch(`${base}/openapi.yaml`);
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
    expect(await yaml.text()).toMatch(/^openapi: 3\.1\.0/m);
  });
});

describe('startup agreement', () => {
  test('document, persisted operations and mappers must name the same operationIds', async () => {
    const { checkAgreement } = await import('../src/document.js');
    const persisted = new Map([
      ['listDevices', 'query listDevices { device { id } }'],
      ['orphan', 'query orphan { device { id } }'],
      ['misnamed', 'query other { device { id } }'],
    ]);
    expect(checkAgreement(['listDevices', 'getDevice', 'misnamed'], persisted, ['listDevices', 'misnamed'])).toEqual([
      "operation 'getDevice' has no document in schema/operations/rest.manifest.json",
      "operation 'getDevice' has no mapper in rest-facade/src/operations",
      "schema/operations/rest.manifest.json: document 'orphan' matches no operationId in rest.yaml",
      "schema/operations/rest.manifest.json: document 'misnamed' must hold exactly one operation, named 'misnamed'",
    ]);
  });
});
