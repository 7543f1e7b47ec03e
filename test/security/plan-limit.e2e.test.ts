/**
 * Issue 34, M1: a document the gateway has not planned costs several times a repeated one and a
 * place in every cache, so new documents count against their key's budget of plans
 * (RATE_LIMIT_PLAN_POINTS per RATE_LIMIT_DURATION_SECONDS), beside its request limit.
 */
import { startHarness, type Harness } from '../../gateway/test/harness.js';

const PLANS = 20;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ NODE_ENV: 'production', RATE_LIMIT_POINTS: '300', RATE_LIMIT_PLAN_POINTS: String(PLANS) });
}, 60_000);
afterAll(() => h?.stop());

const post = (query: string, operationName?: string) =>
  fetch(`${h.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': h.key },
    body: JSON.stringify({ query, ...(operationName ? { operationName } : {}) }),
  });

test('a key sending N distinct documents is refused sooner than one sending the same document N times', async () => {
  const N = PLANS * 2;
  // The same document N times: planned once, charged once; a named operation likewise (its plan is
  // stored under the text's hash and the name).
  const same: number[] = [];
  for (let i = 0; i < N; i++) same.push((await post('{ device(where: { name: { eq: "same" } }) { id } }')).status);
  for (let i = 0; i < N; i++) same.push((await post('query A { account { id } } query B { device { id } }', 'B')).status);
  expect(same).toEqual(Array(2 * N).fill(200));
  // N distinct documents (a literal differs): the budget has PLANS - 2 left.
  const distinct: Response[] = [];
  for (let i = 0; i < N; i++) distinct.push(await post(`{ device(where: { name: { eq: "d${i}" } }) { id } }`));
  const statuses = distinct.map((r) => r.status);
  expect(statuses.indexOf(429)).toBe(PLANS - 2);
  expect(statuses.slice(PLANS - 2)).toEqual(Array(N - PLANS + 2).fill(429));
  const refused = distinct[PLANS - 2]!;
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  const body = (await refused.json()) as { errors: { message: string; extensions: { code: string; retryAfter: number } }[] };
  expect(body.errors[0]!.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: Number(refused.headers.get('retry-after')) });
  expect(body.errors[0]!.message).toMatch(/too many new GraphQL documents for this API key .*variables/);
  // A document already planned still answers: the refusal is about new plans, not requests.
  expect((await post('{ device(where: { name: { eq: "same" } }) { id } }')).status).toBe(200);
  // The facades' persisted documents are not charged (no edge rate key in-process).
  expect((await fetch(`${h.baseUrl}/devices?take=1`, { headers: { 'x-service-apikey': h.key } })).status).toBe(200);
});
