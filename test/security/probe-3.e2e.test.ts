/**
 * The third black-box probe (issue 34): each row it broke, replayed against the all-in-one server in
 * production mode through its public interfaces, with the probe's own requests.
 */
import { startHarness, type Harness } from '../../gateway/test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ NODE_ENV: 'production' });
  // A first request pays for warming up the gateway; the timings below are not about that.
  await h.gql('{ device(where: { name: { eq: "x" } }) { id } }');
}, 60_000);
afterAll(() => h?.stop());

/** `{and:[{and:[ ... {name:{eq:"x"}} ]}]}`: `levels` nested `and` lists, as GraphQL literal text. */
const nestedAnd = (levels: number) => `${'{and:['.repeat(levels)}{name:{eq:"x"}}${']}'.repeat(levels)}`;

describe('H1: a nested argument literal is refused at validation, before planning', () => {
  // Each level used to double the gateway's planning time (22 levels: 5 s, the process frozen);
  // 320 levels fit in the 2,000-token limit. 10 s is a generous ceiling for a busy 2-core machine:
  // the refusal takes milliseconds, the old planning never returned.
  test.each([22, 320])(
    '%i levels: a 400 naming the argument, in well under the old planning time',
    async (levels) => {
      const started = Date.now();
      const r = await h.gql(`{ device(where: ${nestedAnd(levels)}) { id } }`);
      const ms = Date.now() - started;
      expect([r.status, r.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
      expect(r.body.errors![0]!.message).toMatch(/argument "where" is nested too deeply/);
      expect(ms).toBeLessThan(2_000);
      // The process was never blocked: a health check answers at once.
      expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
    },
    10_000,
  );

  test("a filter inside the limit still plans and runs (8 nested `and`, the subgraphs' own maximum)", async () => {
    const r = await h.gql(`{ device(where: ${nestedAnd(8)}) { id } }`);
    expect([r.status, r.body.errors]).toEqual([200, undefined]);
  });

  test('the same limits hold for variables, through the REST and legacy facades', async () => {
    const made = await h.gql('mutation { createDataTable(input: { name: "Deep", columns: [{ name: "N", key: "n", type: TEXT }] }) { table { id } } }');
    const t = made.body.data!.createDataTable.table.id as string;
    // 26 levels: inside the facades' body cap (32) and the old variable cap (64), past the one limit
    // now shared with literals; 320 levels: the REST body cap (32) or this one, whichever comes first.
    for (const [depth, message] of [
      [26, /variable \$\w+ is nested too deeply \(more than 24 levels/],
      [320, /nested (deeper than 32 levels|too deeply \(more than 24 levels)/],
    ] as const) {
      const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const body = `{"data":{"n":${deep}}}`;
      const started = Date.now();
      const viaRest = await fetch(`${h.baseUrl}/datatables/${t}/rows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-apikey': h.key },
        body,
      });
      const viaLegacy = await fetch(`${h.legacyUrl}/datatables/${t}/rows?api_key=${h.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const texts = [await viaRest.text(), await viaLegacy.text()];
      expect([depth, viaRest.status, viaLegacy.status]).toEqual([depth, 400, 400]);
      for (const text of texts) expect(text).toMatch(message);
      expect(Date.now() - started).toBeLessThan(2_000);
    }
  });
});

test('L1: a subscription (the schema has none) is a 400 that says so, not a 500', async () => {
  for (const query of ['subscription { x }', 'subscription { device { id } }', 'subscription S { __typename }']) {
    const r = await h.gql(query);
    expect([query, r.status]).toEqual([query, 400]);
    expect(r.body.errors![0]!.message).toMatch(/subscription/i);
    expect(JSON.stringify(r.body)).not.toMatch(/INVALID_GRAPHQL|INTERNAL_SERVER_ERROR/);
  }
});

const rest = (path: string, init: RequestInit = {}) =>
  fetch(`${h.baseUrl}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', 'x-service-apikey': h.key, ...(init.headers as Record<string, string>) },
  });

test("L4: a screen's key reads the rows of the tables its templates show, no other table of its account", async () => {
  const device = (await (await rest('/devices', { method: 'POST', body: JSON.stringify({ name: 'Menu screen' }) })).json()) as {
    id: string;
    registration_key: string;
  };
  const table = async (name: string) =>
    (await h.gql(`mutation { createDataTable(input: { name: "${name}", columns: [{ name: "Dish", key: "dish", type: TEXT }] }) { table { id } } }`)).body.data!
      .createDataTable.table.id as string;
  const [shown, other] = [await table('Shown'), await table('Other')];
  const rows = (t: string) => fetch(`${h.baseUrl}/player/${device.registration_key}/datatables/${t}/rows`);
  // No template of this screen shows either table yet.
  expect([(await rows(shown)).status, (await rows(other)).status]).toEqual([404, 404]);
  const templateId = (
    await h.gql(
      `mutation($d: String) { createTemplate(input: { name: "Board", width: 1600, height: 900, modules: [
      { name: "menu", left: 0, top: 0, width: 1600, height: 900, dataTableId: $d }] }) { success template { id } } }`,
      { variables: { d: shown } },
    )
  ).body.data!.createTemplate.template.id as string;
  const s = await h.gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error } }', {
    variables: { i: { name: 'Board', type: 'TEMPLATE', templateId, deviceIds: [device.id] } },
  });
  expect(s.body.data!.createSchedule.success).toBe(true);
  const ok = await rows(shown);
  expect(ok.status).toBe(200);
  const refused = await rows(other);
  expect(refused.status).toBe(404);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/no template of this screen shows/);
});

test.each(['x-original-forwarded-for', 'x-cluster-client-ip', 'fastly-client-ip', 'x-envoy-external-address', 'x-forwarded-for', 'x-some-future-proxy-header'])(
  'L5: /metrics refuses a loopback caller relayed with only %s (an allow rule, not a list of proxy headers)',
  async (header) => {
    expect((await fetch(`${h.baseUrl}/metrics`, { headers: { [header]: '203.0.113.7' } })).status).toBe(404);
    // The local operator (no proxy; curl's and Prometheus' own headers) still reads it.
    expect((await fetch(`${h.baseUrl}/metrics`)).status).toBe(200);
    expect((await fetch(`${h.baseUrl}/metrics`, { headers: { accept: 'text/plain', 'x-prometheus-scrape-timeout-seconds': '10' } })).status).toBe(200);
  },
);

test('L2: an expanded-year timestamp in an analytics where is a 400 naming the field, not an internal error', async () => {
  const r = await h.gql('{ eventLogs(startDate: "2026-01-01", endDate: "2026-01-02", where: { timestamp: { gt: "+010000-01-01T00:00:00Z" } }) { id } }');
  expect(r.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'where.timestamp' } });
  expect(JSON.stringify(r.body)).not.toMatch(/INTERNAL_SERVER_ERROR/);
});

test("M4: one screen's 50 × 1,000 play logs: its burst (10,000) is taken, the rest is 429 with Retry-After", async () => {
  const device = (await (await rest('/devices', { method: 'POST', body: JSON.stringify({ name: 'Chatty screen' }) })).json()) as { registration_key: string };
  const at = new Date(Date.now() - 60_000).toISOString();
  const statuses: number[] = [];
  let retryAfter = 0;
  for (let b = 0; b < 50; b++) {
    const batch = Array.from({ length: 1000 }, (_, i) => ({ id: `m4-${b}-${i}`, timestamp: at, file_id: 'f', duration: 10, type: 'image' }));
    const res = await fetch(`${h.baseUrl}/player/${device.registration_key}/playlogs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    statuses.push(res.status);
    if (res.status === 429) retryAfter = Number(res.headers.get('retry-after'));
    await res.arrayBuffer();
  }
  // Before: all 50 were 202 (~41,000 records/s from one key).
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(202));
  expect(statuses.slice(10)).toEqual(Array(40).fill(429));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(100);
}, 120_000);
