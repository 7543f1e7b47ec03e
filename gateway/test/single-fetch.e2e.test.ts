/**
 * The gateway's single-fetch path (single-fetch.executor.ts): a query planned as one fetch whose
 * shape is the client's answers the subgraph's data as it is. The answers must be byte for byte
 * those of Apollo's standard path; what the path remembers (a document's plan) must never carry a
 * caller's data or rights to another request.
 */
import { createAccount, createApiKey, createUser, revokeApiKey, type IdentityService } from '@pylon/identity';
import { startHarness, TEST_KEY, type Harness } from './harness.js';

let h: Harness;
let keyB: string;
let identity: IdentityService;

beforeAll(async () => {
  h = await startHarness();
  identity = h.subgraphs.identity as unknown as IdentityService;
  await createAccount(identity.repo, { id: 'tenant-sf', name: 'Tenant SF', timezone: 'UTC' });
  const owner = await createUser(identity.repo, { accountId: 'tenant-sf', username: 'owner@tenant-sf.example', roles: ['Owner', 'API'] });
  keyB = (await createApiKey(identity.repo, { accountId: 'tenant-sf', userId: owner.id, name: 'b' })).value;
}, 60_000);
afterAll(() => h.stop());

const stats = () => ({ ...h.gateway.singleFetch });
/** The raw response text and status, so key order and every byte are compared. */
async function raw(query: string, variables?: Record<string, unknown>, key = TEST_KEY) {
  const res = await fetch(`${h.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': key },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, text: await res.text() };
}

describe('single-fetch path', () => {
  test.each([
    [
      'a list with aliases, a fragment and variables',
      'query L($n: Int) { list: device(limit: $n) { ...D n: name } } fragment D on Device { id tags }',
      { n: 3 },
    ],
    ['one object', '{ account { id name } }', undefined],
    [
      'an analytics series',
      '{ playStatsByTime(startDate: "2026-01-01", endDate: "2026-01-03", interval: DAY) { periodStart totalPlays avgDuration } }',
      undefined,
    ],
  ])('%s: the direct answer is byte for byte the standard one', async (_name, query, variables) => {
    const before = stats();
    const first = await raw(query, variables); // standard path: the plan is learned
    const second = await raw(query, variables);
    const after = stats();
    expect(first.status).toBe(200);
    expect(first.text).not.toContain('"errors"');
    expect(second).toEqual(first);
    expect(after.direct - before.direct).toBe(1);
  });

  test('plans with several fetches, conditions or gateway-answered fields take the standard path', async () => {
    const cases: [string, Record<string, unknown>?][] = [
      ['{ device(limit: 1) { id } account { id } }'], // two subgraphs
      ['query($x: Boolean!) { device(limit: 1) { id name @include(if: $x) } }', { x: false }],
      ['{ __typename device(limit: 1) { id } }'], // __typename of the root: the gateway's
    ];
    for (const [query, variables] of cases) {
      const before = stats();
      const first = await raw(query, variables);
      const second = await raw(query, variables);
      expect(first.status).toBe(200);
      expect(second).toEqual(first);
      expect(stats().direct).toBe(before.direct);
    }
  });

  test('another account running a remembered document gets its own data', async () => {
    const query = '{ device(limit: 5) { id name } }';
    const a1 = JSON.parse((await raw(query)).text) as { data: { device: { id: string }[] } };
    expect(a1.data.device.length).toBeGreaterThan(0);
    const before = stats();
    const b = JSON.parse((await raw(query, undefined, keyB)).text) as { data: { device: unknown[] } };
    expect(stats().direct).toBe(before.direct + 1);
    expect(b.data.device).toEqual([]);
    const a2 = JSON.parse((await raw(query)).text) as typeof a1;
    expect(a2).toEqual(a1);
  });

  test('a revoked key is refused for a remembered document', async () => {
    const owner = (await identity.repo.users.find('tenant-sf', { username: 'owner@tenant-sf.example' }))[0]!;
    const { key, value } = await createApiKey(identity.repo, { accountId: 'tenant-sf', userId: owner.id, name: 'short' });
    const query = '{ account { id } }';
    expect(JSON.parse((await raw(query, undefined, value)).text)).toEqual({ data: { account: { id: 'tenant-sf' } } });
    await revokeApiKey({ repo: identity.repo, cache: identity.cache }, 'tenant-sf', key.id);
    expect((await raw(query, undefined, value)).status).toBe(401);
  });

  test('a changed document is planned anew, never answered with another document’s plan', async () => {
    await raw('{ device(limit: 2) { id } }');
    await raw('{ device(limit: 2) { id } }');
    const changed = await raw('{ device(limit: 2) { id name } }');
    const parsed = JSON.parse(changed.text) as { data: { device: Record<string, unknown>[] } };
    expect(Object.keys(parsed.data.device[0]!)).toEqual(['id', 'name']);
  });

  test('errors from the subgraph (one call, answered by Apollo) and variables that do not coerce answer exactly as the standard path', async () => {
    const bad = '{ playStatsByTime(startDate: "not a date", endDate: "2026-01-03", interval: DAY) { totalPlays } }';
    const first = await raw(bad);
    const before = stats();
    const second = await raw(bad);
    expect(second).toEqual(first);
    expect(first.text).toContain('BAD_USER_INPUT');
    expect(stats().replayed).toBe(before.replayed + 1);

    const typed = 'query($n: Int) { device(limit: $n) { id } }';
    expect((await raw(typed, { n: 1 })).status).toBe(200);
    const wrong1 = await raw(typed, { n: 'many' });
    const wrong2 = await raw(typed, { n: 'many' });
    expect(wrong1.status).toBe(400);
    expect(wrong2).toEqual(wrong1);
  });
});
