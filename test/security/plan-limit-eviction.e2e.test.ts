/**
 * Issue 34, M1 (plans limiter): a document the gateway answers as a single fetch
 * (single-fetch.executor.ts) is planned, though that path never reads the plan store, so its stored
 * plan ages out of the LRU while the document stays hot. It must not be charged as new again.
 * Caches of 10 entries (the least allowed), so a few other documents evict its stored plan.
 * (A file of its own: one embedded analytics store per process, and other cache settings than plan-limit.e2e.)
 */
import { startHarness, type Harness } from '../../gateway/test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ NODE_ENV: 'production', RATE_LIMIT_POINTS: '1000', RATE_LIMIT_PLAN_POINTS: '40', GRAPHQL_CACHE_ENTRIES: '10' });
}, 60_000);
afterAll(() => h?.stop());

test('a document answered as a single fetch is not charged again once its stored plan is evicted', async () => {
  // The hot document stays parsed (each request reads it from the document store) while its
  // stored plan, which the single-fetch path never reads, is evicted by the others.
  const send = (query: string) =>
    fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-apikey': h.key },
      body: JSON.stringify({ query }),
    }).then((r) => r.status);
  const hot = '{ device(where: { name: { eq: "hot" } }) { id } }';
  const statuses = [await send(hot)];
  for (let i = 0; i < 25; i++) statuses.push(await send(`{ device(where: { name: { eq: "other${i}" } }) { id } }`), await send(hot));
  for (let i = 0; i < 60; i++) statuses.push(await send(hot));
  // 26 new documents charged; the hot one answered 86 times, charged once.
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
});
