import { harnessForTests } from './harness.js';

const h = harnessForTests({ NODE_ENV: 'production' });

test('introspection is refused in production', async () => {
  const r = await h.gql('{ __schema { types { name } } }');
  expect(r.status).toBe(400);
  expect(r.body.data).toBeUndefined();
});

test('a misspelled field gets no suggestion in production', async () => {
  const r = await h.gql('{ devise { id } }');
  expect(r.status).toBe(400);
  expect(JSON.stringify(r.body)).not.toMatch(/Did you mean/);
});

test('the SDL needs a key in production, where introspection is off (issue 20, finding 3)', async () => {
  expect((await fetch(`${h.baseUrl}/graphql/?sdl`)).status).toBe(401);
  expect((await fetch(`${h.baseUrl}/graphql/?sdl`, { headers: { 'x-service-apikey': 'not-a-valid-key-0123456789' } })).status).toBe(401);
  const keyed = await fetch(`${h.baseUrl}/graphql/?sdl`, { headers: { 'x-service-apikey': h.key } });
  expect(keyed.status).toBe(200);
  expect(await keyed.text()).toMatch(/type Device \{/);
});

test('the browser docs are off in production unless DOCS_ENABLED=true (404, and /graphql stays API-only)', async () => {
  for (const path of ['/docs', '/graphiql', '/docs/assets/swagger-ui-bundle.js', '/graphiql/assets/graphiql.js']) {
    expect([path, (await fetch(`${h.baseUrl}${path}`)).status]).toEqual([path, 404]);
  }
  const browser = await fetch(`${h.baseUrl}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  expect(browser.headers.get('content-type')).not.toMatch(/text\/html/);
  expect(h.docs).toBe(false);
});
