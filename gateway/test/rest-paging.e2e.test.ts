/**
 * REST list paging headers: RFC 8288 `Link` (first, prev, next) and `X-Total-Count` when the total
 * is known, beside the reference's bare-array bodies (demo data: eight devices).
 */
import { harnessForTests } from './harness.js';
import { otherAccountKey } from './other-account.js';

const h = harnessForTests();

const get = (path: string) => fetch(`${h.baseUrl}${path}`, { headers: { 'x-service-apikey': h.key } });

test('a middle page links first, prev and next and carries the total; the body stays a bare array of take items', async () => {
  const res = await get('/devices?take=3&page=1');
  expect(res.status).toBe(200);
  const body = (await res.json()) as unknown[];
  expect(Array.isArray(body)).toBe(true);
  expect(body).toHaveLength(3);
  expect(res.headers.get('link')).toBe('</devices?take=3&page=0>; rel="first", </devices?take=3&page=0>; rel="prev", </devices?take=3&page=2>; rel="next"');
  const all = (await (await get('/devices?take=1000')).json()) as unknown[];
  expect(res.headers.get('x-total-count')).toBe(String(all.length));
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

test('the total counts the filtered list on every page (first, middle, last)', async () => {
  const online = (await (await get('/devices?is_online=false&take=1000')).json()) as unknown[];
  expect(online.length).toBeGreaterThan(1);
  for (const page of [0, 1, online.length - 1]) {
    const res = await get(`/devices?is_online=false&take=1&page=${page}`);
    expect(await res.json()).toHaveLength(1);
    expect(res.headers.get('x-total-count')).toBe(String(online.length));
  }
  // A filter matching nothing: an empty page with a total of 0.
  const none = await get('/devices?id=no-such-device&take=5');
  expect(await none.json()).toEqual([]);
  expect(none.headers.get('x-total-count')).toBe('0');
});

test('every list root with a count answers the total on its first page', async () => {
  // The demo seed may still be adding records just after start: compare with a whole list that
  // stayed the same around the paged request.
  const length = async (path: string) => ((await (await get(`${path}?take=1000`)).json()) as unknown[]).length;
  for (const path of ['/devices', '/media', '/playlists', '/templates', '/schedules', '/users', '/alerts']) {
    for (let attempt = 1; ; attempt++) {
      const before = await length(path);
      const res = await get(`${path}?take=1`);
      const after = await length(path);
      if (before !== after && attempt < 20) {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect({ path, total: res.headers.get('x-total-count') }).toEqual({ path, total: String(after) });
      break;
    }
  }
  const audit = await get('/account/auditevents?limit=1');
  expect(audit.status).toBe(200);
  expect(Number(audit.headers.get('x-total-count'))).toBeGreaterThanOrEqual(0);
});

test('group lists carry Link and X-Total-Count on every page', async () => {
  const created: string[] = [];
  for (const name of ['paging-a', 'paging-b', 'paging-c']) {
    const r = await fetch(`${h.baseUrl}/devices/groups`, {
      method: 'POST',
      headers: { 'x-service-apikey': h.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    expect(r.status).toBe(201);
    created.push(((await r.json()) as { id: string }).id);
  }
  const all = (await (await get('/devices/groups')).json()) as unknown[];
  expect(all.length).toBeGreaterThanOrEqual(3);
  const first = await get('/devices/groups?take=1');
  expect(await first.json()).toHaveLength(1);
  expect(first.headers.get('link')).toBe('</devices/groups?take=1&page=0>; rel="first", </devices/groups?take=1&page=1>; rel="next"');
  expect(first.headers.get('x-total-count')).toBe(String(all.length));
  const last = await get(`/devices/groups?take=1&page=${all.length - 1}`);
  expect(last.headers.get('link')).not.toContain('rel="next"');
  expect(last.headers.get('link')).toContain('rel="prev"');
  expect(last.headers.get('x-total-count')).toBe(String(all.length));
  for (const path of ['/media/groups', '/playlists/groups', '/templates/groups', '/schedules/groups']) {
    const res = await get(`${path}?take=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toContain('rel="first"');
    expect(res.headers.get('x-total-count')).toMatch(/^\d+$/);
  }
});

test("another account's totals count only its own records", async () => {
  const value = await otherAccountKey(h, 'paging-other', 'other@paging.example');
  const other = (path: string) => fetch(`${h.baseUrl}${path}`, { headers: { 'x-service-apikey': value } });
  const created = await fetch(`${h.baseUrl}/devices`, {
    method: 'POST',
    headers: { 'x-service-apikey': value, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Other screen' }),
  });
  expect(created.status).toBe(201);
  const devices = await other('/devices?take=1');
  expect(devices.headers.get('x-total-count')).toBe('1');
  for (const path of ['/devices/groups?take=1', '/media?take=1', '/playlists?take=1', '/schedules?take=1']) {
    expect({ path, total: (await other(path)).headers.get('x-total-count') }).toEqual({ path, total: '0' });
  }
  // The demo account's total is unchanged by the other account's device.
  const demo = (await (await get('/devices?take=1000')).json()) as unknown[];
  expect((await get('/devices?take=1')).headers.get('x-total-count')).toBe(String(demo.length));
});
