/**
 * REST list paging headers: RFC 8288 `Link` (first, prev, next) and `X-Total-Count` when the total
 * is known, beside the reference's bare-array bodies (demo data: eight devices).
 */
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(() => h.stop());

const get = (path: string) => fetch(`${h.baseUrl}${path}`, { headers: { 'x-service-apikey': h.key } });

test('a middle page links first, prev and next; the body stays a bare array of take items', async () => {
  const res = await get('/devices?take=3&page=1');
  expect(res.status).toBe(200);
  const body = (await res.json()) as unknown[];
  expect(Array.isArray(body)).toBe(true);
  expect(body).toHaveLength(3);
  expect(res.headers.get('link')).toBe('</devices?take=3&page=0>; rel="first", </devices?take=3&page=0>; rel="prev", </devices?take=3&page=2>; rel="next"');
  expect(res.headers.get('x-total-count')).toBeNull();
  expect(res.headers.get('access-control-expose-headers')).toMatch(/Link.*X-Total-Count/);
});

test('the last page has no next link and carries the total', async () => {
  const all = (await (await get('/devices?take=1000')).json()) as unknown[];
  const res = await get('/devices?take=3&page=2');
  const body = (await res.json()) as unknown[];
  expect(body).toHaveLength(all.length - 6);
  expect(res.headers.get('link')).not.toContain('rel="next"');
  expect(res.headers.get('x-total-count')).toBe(String(all.length));
  // Following the links walks every item exactly once.
  const seen: string[] = [];
  let next: string | undefined = '/devices?take=3&page=0';
  while (next) {
    const r = await get(next);
    seen.push(...((await r.json()) as { id: string }[]).map((d) => d.id));
    next = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
  }
  expect(new Set(seen).size).toBe(all.length);
  expect(seen).toHaveLength(all.length);
});

test('other filters stay in the links; an api_key parameter is not echoed', async () => {
  const res = await fetch(`${h.baseUrl}/devices?take=2&is_online=true&api_key=${h.key}`);
  expect(res.status).toBe(200);
  const link = res.headers.get('link')!;
  expect(link).toContain('is_online=true');
  expect(link).not.toContain(h.key);
});

test('other lists too (media, playlists, users)', async () => {
  for (const path of ['/media?take=1', '/playlists?take=1', '/users?take=1']) {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toContain('rel="first"');
  }
});
