import { createApiKey, type IdentityService } from '@pylon/identity';
import { harnessForTests, TEST_KEY } from './harness.js';

const h = harnessForTests();

const deep = (n: number) => `{ deviceGroups(tree: true) { ${'children { '.repeat(n)}id${' }'.repeat(n)} } }`;

describe('authentication at the edge', () => {
  test('X-Service-ApiKey header', async () => {
    const r = await h.gql('{ device(limit: 2) { id name } }');
    expect(r.status).toBe(200);
    expect(r.body.data?.device).toHaveLength(2);
  });
  test('api_key query parameter', async () => {
    const res = await fetch(`${h.baseUrl}/graphql?api_key=${TEST_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ device(limit: 1) { id } }' }),
    });
    expect(res.status).toBe(200);
  });
  test('no key: 401 UNAUTHENTICATED', async () => {
    const r = await h.gql('{ device { id } }', { key: null });
    expect(r.status).toBe(401);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
  test('wrong key: 401 UNAUTHENTICATED', async () => {
    const r = await h.gql('{ device { id } }', { key: 'wrong-wrong-wrong-wrong' });
    expect(r.status).toBe(401);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
  test('a user without the policy gets FORBIDDEN', async () => {
    const identity = h.subgraphs.identity as unknown as IdentityService;
    const [viewer] = await identity.repo.users.find('demo-account', { username: 'viewer@demo.example' });
    const { value } = await createApiKey(identity.repo, { accountId: 'demo-account', userId: viewer!.id, name: 'viewer key' });
    const r = await h.gql('{ user { id } }', { key: value });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const ok = await h.gql('{ device(limit: 1) { id } }', { key: value });
    expect(ok.body.errors).toBeUndefined();
  });
});

describe('GraphQL hardening', () => {
  test("a string literal carrying graphql-jit's date marker stays data: the subgraph does not compile it into code", async () => {
    const marker = '__MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d(globalThis.__pylonCompiledProbe = 1)';
    for (const literal of [JSON.stringify(marker), `"\\u005F${marker.slice(1)}"`]) {
      const r = await h.gql(`{ device(where: { name: { eq: ${literal} } }) { id name } }`);
      expect(r.status).toBe(200);
      expect(r.body.data?.device).toEqual([]);
    }
    expect((globalThis as { __pylonCompiledProbe?: unknown }).__pylonCompiledProbe).toBeUndefined();
  });
  test('unknown where operator is a validation error', async () => {
    const r = await h.gql('{ device(where: { name: { like: "x" } }) { id } }');
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
  test('a 40-deep query is rejected', async () => {
    const r = await h.gql(deep(40));
    expect(r.status).toBe(400);
    // Depth and cost both refuse it; armor reports whichever rule runs first.
    expect(r.body.errors?.map((e) => e.message).join(' ')).toMatch(/depth|cost/i);
  });
  test('depth through fragments counts too', async () => {
    const q = `query { deviceGroups(tree: true) { ...A } } fragment A on DeviceGroup { children { ...B } } fragment B on DeviceGroup { children { ...C } } fragment C on DeviceGroup { children { ...D } } fragment D on DeviceGroup { children { ...E } } fragment E on DeviceGroup { children { ...F } } fragment F on DeviceGroup { children { ...G } } fragment G on DeviceGroup { children { ...H } } fragment H on DeviceGroup { children { id } }`;
    const r = await h.gql(q);
    expect(r.status).toBe(400);
  });
  test('realistic nesting passes', async () => {
    const r = await h.gql(deep(4));
    expect(r.body.errors).toBeUndefined();
  });
  test('101 aliases are rejected', async () => {
    const r = await h.gql(`{ ${Array.from({ length: 101 }, (_, i) => `a${i}: permissions { isAdministrator }`).join(' ')} }`);
    expect(r.status).toBe(400);
  });
  test('20 root fields are rejected', async () => {
    const r = await h.gql(`{ ${Array.from({ length: 20 }, () => 'permissions { isAdministrator }').join(' ')} }`);
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.message).toMatch(/root fields/);
  });
  test('500 __typename tokens are rejected', async () => {
    const r = await h.gql(`{ ${'__typename '.repeat(2500)} }`);
    expect(r.status).toBe(400);
  });
  test('repeated directives are rejected', async () => {
    const r = await h.gql(`{ permissions ${'@include(if: true) '.repeat(11)} { isAdministrator } }`);
    expect(r.status).toBe(400);
  });
  test('limit above the maximum is refused', async () => {
    const r = await h.gql('{ device(limit: 99999999) { id } }');
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
  test('batched requests are refused', async () => {
    const res = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-apikey': TEST_KEY },
      body: JSON.stringify(Array.from({ length: 10 }, () => ({ query: '{ permissions { isAdministrator } }' }))),
    });
    expect(res.status).toBe(400);
  });
  test('CSRF: a GET or form post without a preflight header is blocked', async () => {
    const get = await fetch(`${h.baseUrl}/graphql?query=${encodeURIComponent('{ permissions { isAdministrator } }')}`, {
      headers: { 'x-service-apikey': TEST_KEY },
    });
    expect(get.status).toBe(400);
    const form = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-service-apikey': TEST_KEY },
      body: '{"query":"{ permissions { isAdministrator } }"}',
    });
    expect(form.status).toBe(400);
  });
  test('errors carry no stack or exception details', async () => {
    const r = await h.gql('{ device(where: { isOnline: { eq: true, neq: false } }) { id } }');
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(r.body)).not.toMatch(/stacktrace|exception|at .*\.ts/);
  });
  test('introspection is on in development', async () => {
    const r = await h.gql('{ __schema { queryType { name } } }');
    expect(r.body.data?.__schema).toBeDefined();
  });
});

describe('SDL and operations endpoints', () => {
  test('/graphql/?sdl serves the API schema without federation internals', async () => {
    const res = await fetch(`${h.baseUrl}/graphql/?sdl`);
    expect(res.status).toBe(200);
    const sdl = await res.text();
    expect(sdl).toMatch(/type Device \{/);
    expect(sdl).toMatch(/input DeviceFilterInput/);
    expect(sdl).not.toMatch(/_entities|join__|@key|_Service|link__/);
  });
  test('/healthz, /readyz and /metrics', async () => {
    expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks).toMatchObject({ documents: 'ok', analytics: 'ok' });
    expect((await h.gql('{ device(limit: 1) { id } }')).status).toBe(200);
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/http_request_duration_seconds/);
    // The gateway's per-document caches (the query above is in them): entries and estimated bytes.
    expect(metrics).toMatch(/^pylon_gateway_cache_entries\{[^}]*cache="plans"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^pylon_gateway_cache_bytes\{[^}]*cache="documents"[^}]*\} [1-9]/m);
  });
  test('security headers: nosniff, no X-Powered-By', async () => {
    const res = await fetch(`${h.baseUrl}/healthz`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

describe('browser docs on /graphql (content negotiation)', () => {
  const html = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  test('a browser GET gets GraphiQL with a CSP that allows no inline or third-party script', async () => {
    const r = await fetch(`${h.baseUrl}/graphql`, { headers: { accept: html } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
    const page = await r.text();
    expect(page).toMatch(/<div id="graphiql">/);
    expect(page).not.toMatch(/<script>|src="(https?:)?\/\//);
  });
  test('GET with a query, or from a non-browser client, is still the API (and CSRF prevention still applies)', async () => {
    const q = encodeURIComponent('{ device(limit: 1) { id } }');
    const csrf = await fetch(`${h.baseUrl}/graphql?query=${q}`, { headers: { accept: html, 'x-service-apikey': TEST_KEY } });
    expect(csrf.status).toBe(400);
    expect(await csrf.text()).toMatch(/CSRF/);
    const ok = await fetch(`${h.baseUrl}/graphql?query=${q}`, { headers: { accept: html, 'x-service-apikey': TEST_KEY, 'apollo-require-preflight': 'true' } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { device: unknown[] } }).data.device).toHaveLength(1);
    const curl = await fetch(`${h.baseUrl}/graphql`, { headers: { accept: '*/*' } });
    expect(curl.headers.get('content-type')).not.toMatch(/text\/html/);
  });
  test('/docs and its assets come from this origin; unknown asset names are not served', async () => {
    const r = await fetch(`${h.baseUrl}/docs`);
    expect(r.status).toBe(200);
    expect(await r.text()).toMatch(/src="\/docs\/assets\/swagger-ui-bundle\.js"/);
    expect((await fetch(`${h.baseUrl}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
    expect((await fetch(`${h.baseUrl}/docs/assets/package.json`)).status).toBe(404);
    expect((await fetch(`${h.baseUrl}/docs/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
  });
});
