/**
 * The audit trail: GraphQL, REST and legacy requests become audit events asynchronously (stream ->
 * ingest -> analytics store); GraphQL auditEvent and REST GET /account/auditevents read them with
 * every filter of the spec, for account owners only.
 */
import { createApiKey, createUser, type IdentityService } from '@pylon/identity';
import { startHarness, TEST_KEY, type Harness } from './harness.js';

let h: Harness;
let adminKey: string;
let viewerKey: string;
let viewerId: string;
const started = new Date(Date.now() - 1000).toISOString();

interface Event {
  event_id: string;
  timestamp: string;
  event_type: string;
  user_id: string | null;
  user_name: string | null;
  http_method: string;
  controller_name: string;
  action_name: string;
  ip_address: string | null;
  response_code: number;
  interface: string;
}

const events = async (query: string, key = TEST_KEY) => {
  const res = await fetch(`${h.baseUrl}/account/auditevents${query}`, { headers: { 'x-service-apikey': key } });
  return { status: res.status, body: (await res.json()) as any };
};

/** The ingest is asynchronous: poll until the query shows what the test waits for. */
async function waitForEvents(query: string, check: (e: Event[]) => boolean, ms = 15_000): Promise<Event[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await events(query);
    if (r.status === 200 && check(r.body as Event[])) return r.body as Event[];
    if (Date.now() > deadline) throw new Error(`no audit events matching ${query}: ${JSON.stringify(r.body).slice(0, 500)}`);
    await new Promise((res) => setTimeout(res, 150));
  }
}

beforeAll(async () => {
  h = await startHarness();
  const identity = h.subgraphs.identity as unknown as IdentityService;
  const admin = await createUser(identity.repo, { accountId: 'demo-account', username: 'admin@demo.example', roles: ['Administrator', 'API'] });
  adminKey = (await createApiKey(identity.repo, { accountId: 'demo-account', userId: admin.id, name: 'admin' })).value;
  const [viewer] = await identity.repo.users.find('demo-account', { username: 'viewer@demo.example' });
  viewerId = viewer!.id;
  viewerKey = (await createApiKey(identity.repo, { accountId: 'demo-account', userId: viewerId, name: 'viewer' })).value;

  // One request of each kind, then wait for them to land.
  await h.gql('query auditProbe { account { id } }');
  await h.gql('mutation auditWrite { updateAccount(input: { city: "Delft" }) { success } }');
  await h.gql('{ user { id } }', { key: viewerKey }); // FORBIDDEN inside a 200
  await fetch(`${h.baseUrl}/devices?take=1`, { headers: { 'x-service-apikey': TEST_KEY } });
  await fetch(`${h.baseUrl}/users`, { headers: { 'x-service-apikey': viewerKey } }); // 403
  await fetch(`${h.legacyUrl}/account?api_key=${TEST_KEY}&format=xml`);
  // Failed GraphQL reads and writes (validation errors: nothing executed), named by operationName.
  const post = (query: string, operationName: string, key: string | null = TEST_KEY) =>
    fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-service-apikey': key } : {}) },
      body: JSON.stringify({ query, operationName }),
    });
  expect((await post('query failedRead { noSuchField }', 'failedRead')).status).toBe(400);
  expect((await post('# a comment\nmutation failedWrite { noSuchMutation }', 'failedWrite')).status).toBe(400);
  await post('query unauthenticatedRead { account { id } }', 'unauthenticatedRead', null);
  await waitForEvents('?limit=1000', (e) =>
    ['auditProbe', 'auditWrite', 'listDevices', 'listUsers', 'getAccount', 'failedRead', 'failedWrite'].every((a) => e.some((x) => x.action_name === a)),
  );
}, 60_000);
afterAll(() => h.stop());

describe('recording', () => {
  test('a GraphQL query: graphql / operation name / Read, with the caller and address', async () => {
    const [e] = await events('?actionName=auditProbe').then((r) => r.body as Event[]);
    expect(e).toMatchObject({
      event_type: 'Read',
      user_id: 'demo-owner',
      user_name: 'owner@demo.example',
      http_method: 'POST',
      controller_name: 'graphql',
      action_name: 'auditProbe',
      response_code: 200,
      interface: 'graphql',
    });
    expect(e!.ip_address).toMatch(/127\.0\.0\.1/);
    expect(e!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(e!).sort()).toEqual([
      'action_name',
      'controller_name',
      'event_id',
      'event_type',
      'http_method',
      'interface',
      'ip_address',
      'response_code',
      'timestamp',
      'user_id',
      'user_name',
    ]);
  });

  test('a GraphQL mutation is a Write; an anonymous operation is named by its root fields', async () => {
    expect((await events('?actionName=auditWrite')).body[0]).toMatchObject({ event_type: 'Write', controller_name: 'graphql' });
    const viewerEvents = (await events(`?userId=${viewerId}&controllerName=graphql`)).body as Event[];
    expect(viewerEvents[0]).toMatchObject({ action_name: 'user', user_name: 'viewer@demo.example' });
  });

  test('a failed GraphQL read is a Read, a failed mutation a Write (judged by the document, not the POST)', async () => {
    expect((await events('?actionName=failedRead')).body[0]).toMatchObject({ event_type: 'Read', controller_name: 'graphql', response_code: 400 });
    expect((await events('?actionName=failedWrite')).body[0]).toMatchObject({ event_type: 'Write', controller_name: 'graphql', response_code: 400 });
  });

  test('a REST request: its OpenAPI tag and operationId, with the status the caller got', async () => {
    expect((await events('?actionName=listDevices')).body[0]).toMatchObject({
      controller_name: 'Devices',
      http_method: 'GET',
      response_code: 200,
      interface: 'rest',
      user_name: 'owner@demo.example',
    });
    expect((await events('?actionName=listUsers')).body[0]).toMatchObject({ controller_name: 'Users', response_code: 403, user_name: 'viewer@demo.example' });
  });

  test('a legacy request: its resource and operation', async () => {
    expect((await events('?interface=x')).status).toBe(400); // unknown parameters are refused, not ignored
    const legacy = (await events('?actionName=getAccount&controllerName=account')).body as Event[];
    expect(legacy.find((e) => e.interface === 'legacy')).toMatchObject({ http_method: 'GET', response_code: 200, user_name: 'owner@demo.example' });
  });
});

describe('reading: REST filters', () => {
  test('every filter narrows to matching events only', async () => {
    const all = (await events('?limit=1000')).body as Event[];
    expect(all.length).toBeGreaterThanOrEqual(6);
    const checks: [string, (e: Event) => boolean][] = [
      [`userId=${viewerId}`, (e) => e.user_id === viewerId],
      ['eventType=Write', (e) => e.event_type === 'Write'],
      ['httpMethod=GET', (e) => e.http_method === 'GET'],
      ['controllerName=Devices', (e) => e.controller_name === 'Devices'],
      ['actionName=auditProbe', (e) => e.action_name === 'auditProbe'],
      ['ipAddress=' + encodeURIComponent(all[0]!.ip_address!), (e) => e.ip_address === all[0]!.ip_address],
      ['responseCode=403', (e) => e.response_code === 403],
      [`startDate=${started}`, (e) => e.timestamp >= started.slice(0, 19)],
    ];
    for (const [q, match] of checks) {
      const r = await events(`?${q}&limit=1000`);
      expect(r.status).toBe(200);
      const got = r.body as Event[];
      expect(got.length).toBeGreaterThan(0);
      expect(got.every(match)).toBe(true);
      // Later requests (this test's own) add events: every earlier match must still be there.
      const ids = new Set(got.map((e) => e.event_id));
      expect(all.filter(match).every((e) => ids.has(e.event_id))).toBe(true);
    }
    expect((await events('?endDate=2001-01-01')).body).toEqual([]);
    expect((await events(`?endDate=${new Date(Date.now() + 60_000).toISOString()}&limit=1000`)).body.length).toBeGreaterThanOrEqual(all.length);
  });

  test('newest first; limit default 100; page is 0-based and pages are disjoint', async () => {
    const all = (await events('?limit=1000')).body as Event[];
    const stamps = all.map((e) => e.timestamp);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const p0 = (await events('?limit=2&page=0')).body as Event[];
    const p1 = (await events('?limit=2&page=1')).body as Event[];
    expect(p0).toHaveLength(2);
    expect(p1.length).toBeGreaterThan(0);
    expect(p0.map((e) => e.event_id).some((id) => p1.some((e) => e.event_id === id))).toBe(false);
    expect(((await events('')).body as Event[]).length).toBeLessThanOrEqual(100);
  });

  test('bad filters: 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['startDate=yesterday', 'startDate'],
      ['endDate=2024-02-30', 'endDate'],
      ['responseCode=abc', 'responseCode'],
      ['httpMethod=BREW', 'httpMethod'],
      ['limit=5000', 'limit'],
      ['page=-1', 'page'],
      ['startDate=2030-01-02&endDate=2030-01-01', 'endDate'],
    ];
    for (const [q, field] of cases) {
      const r = await events(`?${q}`);
      expect([q, r.status, r.body.error?.field]).toEqual([q, 400, field]);
    }
  });

  test('GET /account/auditevents/{eventId}: one event; 404 for an unknown id', async () => {
    const [first] = (await events('?limit=1')).body as Event[];
    const one = await fetch(`${h.baseUrl}/account/auditevents/${first!.event_id}`, { headers: { 'x-service-apikey': TEST_KEY } });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(first);
    const missing = await fetch(`${h.baseUrl}/account/auditevents/no-such-event`, { headers: { 'x-service-apikey': TEST_KEY } });
    expect(missing.status).toBe(404);
  });
});

describe('reading: GraphQL and the owner-only policy', () => {
  test('auditEvent(startDate, endDate, limit) for the owner', async () => {
    const r = await h.gql(
      'query($s: String, $e: String) { auditEvent(startDate: $s, endDate: $e, limit: 3) { eventId timestamp eventType userName httpMethod controllerName actionName ipAddress responseCode } }',
      {
        variables: { s: started, e: new Date(Date.now() + 60_000).toISOString() },
      },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data?.auditEvent).toHaveLength(3);
  });

  test('an administrator (not an owner) is refused: FORBIDDEN / 403', async () => {
    const g = await h.gql('{ auditEvent(limit: 1) { eventId } }', { key: adminKey });
    expect(g.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await events('', adminKey)).status).toBe(403);
  });
});
