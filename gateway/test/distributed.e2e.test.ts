/**
 * Distributed mode: the gateway and two subgraphs (identity, devices) as separate processes,
 * talking HTTP, sharing one embedded LMDB store (LMDB is multi-process safe).
 */
import { randomBytes } from 'node:crypto';
import { InternalTokens } from '@pylon/kit';
import { registerRestOrigin } from './support/reference-conformance.js';
import { freePort, gatewayEnv, Processes, seedDemoStore } from './processes.js';

const secret = randomBytes(32).toString('hex');
const KEY = 'distributed-test-key-0123456789';
let procs: Processes;
let gatewayUrl: string;
let devicesUrl: string;
let restUrl: string;
let legacyUrl: string;

beforeAll(async () => {
  procs = await Processes.inTempDir('dist', { secret, logLevel: 'warn' });
  await seedDemoStore(procs.dataDir, secret, KEY);

  const [pi, pd, pg, dead] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const identityUrl = await procs.start('services/identity/src/main.ts', {}, pi);
  devicesUrl = await procs.start('services/devices/src/main.ts', { IDENTITY_URL: identityUrl }, pd);
  const nowhere = `http://127.0.0.1:${dead}`;
  gatewayUrl = await procs.start(
    'gateway/src/gateway.main.ts',
    gatewayEnv(nowhere, { IDENTITY_URL: identityUrl, DEVICES_URL: devicesUrl, SUBGRAPH_TIMEOUT_MS: '2000' }),
    pg,
  );
  const [pr, pl] = await Promise.all([freePort(), freePort()]);
  [restUrl, legacyUrl] = await Promise.all([
    procs.start('rest-facade/src/main.ts', { GATEWAY_URL: `${gatewayUrl}/graphql` }, pr),
    procs.start('legacy-adapter/src/main.ts', { GATEWAY_URL: `${gatewayUrl}/graphql` }, pl),
  ]);
  registerRestOrigin(restUrl);
}, 120_000);

afterAll(async () => {
  await procs?.dispose();
});

const gql = (query: string, headers: Record<string, string> = { 'x-service-apikey': KEY }) =>
  fetch(`${gatewayUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });

test('one query spans two subgraph processes', async () => {
  const res = await gql('{ permissions { isAdministrator } account { name timezone } device(limit: 3, order: [{ name: ASC }]) { name isOnline } }');
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { permissions: { isAdministrator: boolean }; account: { name: string }; device: unknown[] }; errors?: unknown };
  expect(body.errors).toBeUndefined();
  expect(body.data.permissions.isAdministrator).toBe(true);
  expect(body.data.account.name).toBe('Demo Signage Co');
  expect(body.data.device).toHaveLength(3);
});

test('the gateway refuses a wrong key', async () => {
  const res = await gql('{ device { name } }', { 'x-service-apikey': 'wrong-key-wrong-key' });
  expect(res.status).toBe(401);
  expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
});

test('a subgraph called directly, without the gateway’s signed token, refuses', async () => {
  const direct = (headers: Record<string, string>) =>
    fetch(`${devicesUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: '{ device { name } }' }),
    });
  const none = await direct({});
  expect(none.status).toBe(401);
  const forged = await direct({
    'x-pylon-internal-token': await new InternalTokens('f'.repeat(32)).sign({
      accountId: 'demo-account',
      userId: 'x',
      userName: 'x',
      roles: ['Owner'],
      policies: ['Devices_View'],
      isOwner: true,
      via: 'api-key',
    }),
  });
  expect(forged.status).toBe(401);
});

test('a down subgraph yields partial data and an error, within the timeout', async () => {
  const started = Date.now();
  const res = await gql('{ device(limit: 1) { name } mediaGroups { name } }');
  const body = (await res.json()) as { data: { device: unknown[] | null } | null; errors: unknown[] };
  expect(Date.now() - started).toBeLessThan(5000);
  expect(body.data?.device).toHaveLength(1);
  expect(body.errors.length).toBeGreaterThan(0);
});

test('a single-subgraph query over HTTP answers the same the second time (single-fetch path), a down subgraph too', async () => {
  const query = '{ device(limit: 3, order: [{ name: ASC }]) { id name tags } }';
  const first = await (await gql(query)).text();
  expect(first).not.toContain('"errors"');
  expect(await (await gql(query)).text()).toBe(first);
  // The second call's fetch fails: Apollo's executor answers it from that same failure, once.
  const down = '{ mediaGroups { name } }';
  const a = await gql(down);
  const aText = await a.text();
  const started = Date.now();
  const b = await gql(down);
  expect(Date.now() - started).toBeLessThan(4000);
  expect(b.status).toBe(a.status);
  expect(await b.text()).toBe(aText);
});

test('the REST facade and the legacy adapter run as their own processes over HTTP', async () => {
  const rest = await fetch(`${restUrl}/devices?take=2&page=0`, { headers: { 'x-service-apikey': KEY } });
  expect(rest.status).toBe(200);
  expect((await rest.json()) as unknown[]).toHaveLength(2);
  const legacy = await fetch(`${legacyUrl}/account?api_key=${KEY}&format=xml`);
  expect(legacy.status).toBe(200);
  expect(await legacy.text()).toMatch(/<name>Demo Signage Co<\/name>/);
  const denied = await fetch(`${restUrl}/devices`, { headers: { 'x-service-apikey': 'not-a-valid-key-at-all' } });
  expect(denied.status).toBe(401);
});

test('the devices process serves the player API: a ping through it shows up through the gateway', async () => {
  const res = await gql('{ device(limit: 1, order: [{ name: ASC }]) { id registrationKey } }');
  const { id, registrationKey } = ((await res.json()) as { data: { device: { id: string; registrationKey: string }[] } }).data.device[0]!;
  const ping = await fetch(`${devicesUrl}/player/${registrationKey}/ping`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cpu_usage: 42.5 }),
  });
  expect(ping.status).toBe(200);
  expect(((await ping.json()) as { device_id: string }).device_id).toBe(id);
  const after = await gql(`{ device(id: ["${id}"]) { isOnline pingData { cpuUsage } } }`);
  expect(((await after.json()) as { data: unknown }).data).toEqual({ device: [{ isOnline: true, pingData: { cpuUsage: 42.5 } }] });
  expect((await fetch(`${devicesUrl}/player/unknown-key-000/ping`, { method: 'POST' })).status).toBe(401);
});
