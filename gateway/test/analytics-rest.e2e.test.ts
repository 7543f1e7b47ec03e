/**
 * The /analytics REST endpoints through the all-in-one server (responses validated by the
 * conformance check the harness registers): every GET dataset, the common parameters and their
 * refusals (400 naming the parameter), groupByDevice/source picking the record, CSV by Accept
 * (formula-safe), POST /analytics/dataset, and tenancy.
 */
import { startHarness, TEST_KEY, type Harness } from './harness.js';
import { playRow } from '../../services/analytics/test/fixtures/telemetry-rows.js';

let h: Harness;
const ACC = 'demo-account';

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${h.baseUrl}${path}`, { headers: { 'x-service-apikey': TEST_KEY, ...headers } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const json = async (path: string) => {
  const r = await get(path);
  expect(r.status).toBe(200);
  return JSON.parse(r.text) as Record<string, unknown>[];
};

beforeAll(async () => {
  h = await startHarness({ LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' });
  const play = (id: string, device: string, file: string, ts: string, duration: number, name = `${file}.mp4`, account = ACC) =>
    playRow({ id, account_id: account, device_id: device, file_id: file, file_name: name, timestamp: ts, duration });
  await h.analytics.insert('play_logs', [
    play('rp1', 'd1', 'f1', '2026-05-04T10:00:00Z', 10, '=HYPERLINK("x")'),
    play('rp2', 'd1', 'f1', '2026-05-04T11:00:00Z', 20, '=HYPERLINK("x")'),
    play('rp3', 'd2', 'f2', '2026-05-05T09:00:00Z', 30, 'Lobby, west.mp4'),
    play('rp9', 'd1', 'f1', '2026-05-04T10:00:00Z', 99, 'other.mp4', 'other-account'),
    // Another account's file: filtering on its id finds nothing in the caller's account.
    play('rp8', 'd1', 'fx', '2026-05-04T12:00:00Z', 7, 'secret.mp4', 'other-account'),
  ]);
  await h.analytics.insert('ping_logs', [
    {
      id: 'rg1',
      account_id: ACC,
      device_id: 'd1',
      timestamp: '2026-05-04T10:00:00Z',
      cpu_usage: 40,
      memory_usage: 50,
      disk_usage: 10,
      player_version: '',
      ip_address: '',
      external_ip_address: '',
    },
  ]);
  await h.analytics.insert('impressions', [
    {
      id: 'ri1',
      account_id: ACC,
      device_id: 'd1',
      file_id: 'f1',
      timestamp: '2026-05-04T10:00:05Z',
      sensor: 'face',
      dwell_time: 3,
      gender: 'female',
      age_range: '25-34',
      visitor_id: 'v1',
      latitude: 40.7128,
      longitude: -74.006,
    },
  ]);
  await h.analytics.insert('event_logs', [
    {
      id: 're1',
      account_id: ACC,
      device_id: 'd1',
      session_id: 's',
      event_name: 'home',
      timestamp: '2026-05-04T10:00:00Z',
      properties: '{}',
      latitude: 40.7,
      longitude: -74,
    },
    {
      id: 're2',
      account_id: ACC,
      device_id: 'd1',
      session_id: 's',
      event_name: 'menu',
      timestamp: '2026-05-04T10:00:01Z',
      properties: '{}',
      latitude: null,
      longitude: null,
    },
  ]);
}, 90_000);
afterAll(() => h?.stop());

const R = 'startDate=2026-05-04&endDate=2026-05-05';

test('every dataset answers its rows in snake_case', async () => {
  expect((await json(`/analytics/playlogs?${R}`)).map((r) => r.id)).toEqual(['rp1', 'rp2', 'rp3']);
  expect(await json(`/analytics/pinglogs?${R}&deviceId=d1`)).toHaveLength(1);
  expect((await json(`/analytics/eventlogs?${R}&eventName=menu`)).map((r) => r.id)).toEqual(['re2']);
  expect(await json(`/analytics/eventmetrics?${R}&interval=day`)).toEqual([
    { event_name: null, period_start: '2026-05-04T00:00:00Z', period_end: '2026-05-05T00:00:00Z', total_events: 2, unique_sessions: 1 },
    { event_name: null, period_start: '2026-05-05T00:00:00Z', period_end: '2026-05-06T00:00:00Z', total_events: 0, unique_sessions: 0 },
  ]);
  expect(await json(`/analytics/eventflow?${R}`)).toEqual([{ source: 'home', target: 'menu', count: 1 }]);
  expect((await json(`/analytics/impressions?${R}`))[0]).toMatchObject({ id: 'ri1', gender: 'FEMALE', age_range: 'AGE25TO34' });
  expect((await json(`/analytics/devicemetrics?${R}&interval=day`))[0]).toMatchObject({ device_id: 'd1', avg_cpu_usage: 40, uptime_percentage: 100 / 1440 });
  expect((await json(`/analytics/audiencemetrics?${R}&includeDwellTime=true`))[0]).toMatchObject({
    device_id: 'd1',
    total_impressions: 1,
    female_count: 1,
    avg_dwell_time: 3,
  });
  expect(await json(`/analytics/mediaplaystats?${R}`)).toMatchObject([
    { file_id: 'f1', total_plays: 2, total_duration: 30 },
    { file_id: 'f2', total_plays: 1, file_name: 'Lobby, west.mp4' },
  ]);
  expect(await json(`/analytics/mediaplaystats?${R}&groupByDevice=true`)).toMatchObject([
    { device_id: 'd1', file_id: 'f1', total_plays: 2 },
    { device_id: 'd2', file_id: 'f2', total_plays: 1 },
  ]);
  expect((await json(`/analytics/deviceplaystats?${R}&fileId=f2`)).map((r) => r.device_id)).toEqual(['d2']);
  const hours = await json(`/analytics/playstatsbytime?${R}&interval=hour&timeZone=America/New_York`);
  expect(hours).toHaveLength(48);
  expect(hours.reduce((n, r) => n + Number(r.total_plays), 0)).toBe(3);
  expect(await json(`/analytics/heatmap?${R}&precision=2`)).toEqual([{ latitude: 40.71, longitude: -74.01, weight: 1 }]);
  expect(await json(`/analytics/heatmap?${R}&source=events&precision=1`)).toEqual([{ latitude: 40.7, longitude: -74, weight: 1 }]);
  expect(await json(`/analytics/mediaimpressions?${R}`)).toMatchObject([
    { file_id: 'f1', total_plays: 2, plays_with_audience: 1, total_impressions: 1 },
    { file_id: 'f2' },
  ]);
  expect(await json(`/analytics/mediaimpressions?${R}&groupByDevice=true`)).toMatchObject([
    { device_id: 'd1', file_id: 'f1', ots_percentage: 50 },
    { device_id: 'd2' },
  ]);
  expect(await json(`/analytics/devicemediaimpressions?${R}&deviceId=d1`)).toMatchObject([{ device_id: 'd1', impressions_per_play: 0.5 }]);
});

test('limit: default 1000, at most 10000; out-of-range parameters answer 400 naming them', async () => {
  expect(await json(`/analytics/playlogs?${R}&limit=1`)).toHaveLength(1);
  const cases: [string, string][] = [
    [`/analytics/playlogs?${R}&limit=10001`, 'limit'],
    [`/analytics/playlogs?${R}&limit=-1`, 'limit'],
    ['/analytics/playlogs?endDate=2026-05-05', 'startDate'],
    [`/analytics/playlogs?startDate=2026-05-06&endDate=2026-05-05`, 'endDate'],
    [`/analytics/playlogs?startDate=tomorrow&endDate=2026-05-05`, 'startDate'],
    [`/analytics/playstatsbytime?${R}&interval=fortnight`, 'interval'],
    [`/analytics/playstatsbytime?startDate=2026-01-01&endDate=2026-05-05&interval=minute`, 'interval'],
    [`/analytics/devicemetrics?${R}&timeZone=Nowhere/City`, 'timeZone'],
    [`/analytics/heatmap?${R}&precision=9`, 'precision'],
    // A common parameter without effect on an endpoint is still checked.
    [`/analytics/pinglogs?${R}&interval=fortnight`, 'interval'],
    [`/analytics/impressions?${R}&groupByDevice=maybe`, 'groupByDevice'],
    [`/analytics/eventflow?${R}&limit=10001`, 'limit'],
    [`/analytics/playstatsbytime?${R}&interval=DAYS`, 'interval'],
  ];
  for (const [path, field] of cases) {
    const r = await get(path);
    expect([path, r.status]).toEqual([path, 400]);
    expect(JSON.parse(r.text).error.field).toBe(field);
  }
});

test('Accept: text/csv streams the rows as formula-safe CSV', async () => {
  const r = await get(`/analytics/mediaplaystats?${R}`, { accept: 'text/csv' });
  expect(r.status).toBe(200);
  expect(r.type).toMatch(/^text\/csv/);
  const lines = r.text.split('\r\n');
  expect(lines[0]).toBe('file_id,file_name,total_plays,total_duration,avg_duration,device_count,first_played,last_played');
  expect(lines[1]).toBe(`f1,"'=HYPERLINK(""x"")",2,30,15,1,2026-05-04T10:00:00Z,2026-05-04T11:00:00Z`);
  expect(lines[2]).toBe('f2,"Lobby, west.mp4",1,30,30,1,2026-05-05T09:00:00Z,2026-05-05T09:00:00Z');
  expect(lines[3]).toBe('');
  // JSON stays the default, and wins when listed first.
  expect((await get(`/analytics/mediaplaystats?${R}`, { accept: 'application/json, text/csv' })).type).toMatch(/json/);
});

test('CSV of an empty result carries the header row: the columns a row of that dataset has', async () => {
  const { ANALYTICS_DATASETS } = await import('@pylon/kit');
  const EMPTY = 'startDate=2020-01-01&endDate=2020-01-01';
  let empties = 0;
  for (const name of Object.keys(ANALYTICS_DATASETS)) {
    const none = await json(`/analytics/${name}?${EMPTY}&deviceId=no-such-device`);
    const csv = await get(`/analytics/${name}?${EMPTY}&deviceId=no-such-device`, { accept: 'text/csv' });
    expect([name, csv.status]).toEqual([name, 200]);
    const [header, ...rest] = csv.text.split('\r\n');
    expect([name, header!.length > 0]).toEqual([name, true]);
    if (none.length === 0) {
      empties++;
      expect([name, rest]).toEqual([name, ['']]);
    }
    // The header names exactly the fields of a row of the same dataset (over the seeded days).
    const rows = await json(`/analytics/${name}?${R}`);
    if (rows.length) expect([name, header]).toEqual([name, Object.keys(rows[0]!).join(',')]);
  }
  expect(empties).toBeGreaterThan(8);
  const lines = (await get(`/analytics/mediaplaystats?${EMPTY}`, { accept: 'text/csv' })).text;
  expect(lines).toBe('file_id,file_name,total_plays,total_duration,avg_duration,device_count,first_played,last_played\r\n');
  const grouped = (await get(`/analytics/mediaplaystats?${EMPTY}&groupByDevice=true`, { accept: 'text/csv' })).text;
  expect(grouped).toBe('device_id,device_name,file_id,file_name,total_plays,total_duration,avg_duration,first_played,last_played\r\n');
});

test('POST /analytics/dataset answers the named dataset', async () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${h.baseUrl}/analytics/dataset`, {
      method: 'POST',
      headers: { 'x-service-apikey': TEST_KEY, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const r = await post({ dataset: 'playstatsbytime', startDate: '2026-05-04', endDate: '2026-05-05', interval: 'day', groupByFile: true });
  expect(r.status).toBe(200);
  expect(((await r.json()) as Record<string, unknown>[]).map((x) => [x.file_id, x.period_start, x.total_plays])).toEqual([
    ['f1', '2026-05-04T00:00:00Z', 2],
    ['f1', '2026-05-05T00:00:00Z', 0],
    ['f2', '2026-05-04T00:00:00Z', 0],
    ['f2', '2026-05-05T00:00:00Z', 1],
  ]);
  const grouped = await post({ dataset: 'mediaimpressions', startDate: '2026-05-04', endDate: '2026-05-05', groupByDevice: true });
  expect(((await grouped.json()) as Record<string, unknown>[])[0]).toMatchObject({ device_id: 'd1', file_id: 'f1' });
  // The common parameters are taken by every dataset (interval in any case); fileId filters play logs.
  const plays = await post({ dataset: 'playlogs', startDate: '2026-05-04', endDate: '2026-05-05', fileId: ['f2'], interval: 'DAY', groupByDevice: true });
  expect([plays.status, ((await plays.json()) as { id: string }[]).map((x) => x.id)]).toEqual([200, ['rp3']]);
  const hours = await post({ dataset: 'devicemetrics', startDate: '2026-05-04', endDate: '2026-05-04', interval: 'Hour' });
  expect([hours.status, ((await hours.json()) as unknown[]).length]).toEqual([200, 24]);
  const csv = await post({ dataset: 'eventflow', startDate: '2026-05-04', endDate: '2026-05-05' }, { accept: 'text/csv' });
  expect(await csv.text()).toBe('source,target,count\r\nhome,menu,1\r\n');
  for (const [body, field] of [
    [{ dataset: 'nope', startDate: '2026-05-04', endDate: '2026-05-05' }, 'dataset'],
    [{ dataset: 'playlogs', startDate: '2026-05-04', endDate: '2026-05-05', groupByFile: true }, 'groupByFile'],
    [{ dataset: 'playlogs', startDate: '2026-05-04', endDate: '2026-05-05', interval: 'fortnight' }, 'interval'],
    [{ dataset: 'playlogs', startDate: '2026-05-04', endDate: '2026-05-05', limit: 20000 }, 'limit'],
  ] as const) {
    const bad = await post(body);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toMatch(new RegExp(field));
  }
});

describe('the common parameters on every endpoint', () => {
  /** Every common parameter with a valid value, as a BI tool sends the same set to each endpoint. */
  const ALL_COMMON = `${R}&deviceId=d1&deviceId=d2&fileId=f1&fileId=f2&eventName=home&eventName=menu&interval=day&groupByDevice=false&limit=500`;

  test('rest.yaml documents the whole common set on every GET /analytics endpoint, saying where one has no effect', async () => {
    const { ANALYTICS_COMMON_PARAMS, ANALYTICS_DATASETS, analyticsParamsWithoutEffect } = await import('@pylon/kit');
    const { loadRestDocument } = await import('@pylon/rest-facade/document');
    type Param = { name: string; in: string; description?: string; $ref?: string };
    const doc = loadRestDocument().definition as unknown as {
      paths: Record<string, { get: { parameters: Param[] } }>;
      components: { parameters: Record<string, Param> };
    };
    const resolve = (p: Param) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!]! : p);
    for (const [name, d] of Object.entries(ANALYTICS_DATASETS)) {
      const params = doc.paths[`/analytics/${name}`]!.get.parameters.map(resolve);
      const without = analyticsParamsWithoutEffect(d);
      for (const common of ANALYTICS_COMMON_PARAMS) {
        const p = params.find((x) => x.name === common && x.in === 'query');
        expect([name, common, Boolean(p)]).toEqual([name, common, true]);
        expect([name, common, /no effect/.test(p!.description ?? '')]).toEqual([name, common, without.includes(common)]);
      }
    }
  });

  test('every endpoint accepts them all; those without effect there change nothing', async () => {
    const { ANALYTICS_COMMON_PARAMS, ANALYTICS_DATASETS, analyticsParamsWithoutEffect } = await import('@pylon/kit');
    const values: Record<string, string[]> = {
      deviceId: ['d1', 'd2'],
      fileId: ['f1', 'f2'],
      eventName: ['home', 'menu'],
      interval: ['day'],
      groupByDevice: ['false'],
    };
    let checked = 0;
    for (const [name, d] of Object.entries(ANALYTICS_DATASETS)) {
      const everything = await get(`/analytics/${name}?${ALL_COMMON}`);
      expect([name, everything.status]).toEqual([name, 200]);
      // The same request without the parameters that have no effect here answers the same rows.
      const without = analyticsParamsWithoutEffect(d);
      const applied = new URLSearchParams(`${R}&limit=500`);
      for (const p of ANALYTICS_COMMON_PARAMS) if (values[p] && !without.includes(p)) for (const v of values[p]) applied.append(p, v);
      const plain = await get(`/analytics/${name}?${applied}`);
      expect([name, plain.status]).toEqual([name, 200]);
      expect([name, JSON.parse(everything.text)]).toEqual([name, JSON.parse(plain.text)]);
      checked += without.length;
    }
    expect(checked).toBeGreaterThan(30);
    // The review's cases, answered as without the parameter.
    expect(await json(`/analytics/playstatsbytime?${R}&groupByDevice=true`)).toEqual(await json(`/analytics/playstatsbytime?${R}`));
    expect(await json(`/analytics/pinglogs?${R}&interval=hour`)).toEqual(await json(`/analytics/pinglogs?${R}`));
    expect(await json(`/analytics/impressions?${R}&eventName=home`)).toEqual(await json(`/analytics/impressions?${R}`));
    expect(await json(`/analytics/devicemetrics?${R}&interval=day&groupByDevice=true`)).toEqual(await json(`/analytics/devicemetrics?${R}&interval=day`));
  });

  test('fileId filters play logs and impressions (known answers)', async () => {
    const ids = async (path: string) => (await json(path)).map((r) => r.id);
    expect(await ids(`/analytics/playlogs?${R}&fileId=f1`)).toEqual(['rp1', 'rp2']);
    expect(await ids(`/analytics/playlogs?${R}&fileId=f2`)).toEqual(['rp3']);
    expect(await ids(`/analytics/playlogs?${R}&fileId=f1&fileId=f2`)).toEqual(['rp1', 'rp2', 'rp3']);
    expect(await ids(`/analytics/playlogs?${R}&fileId=f1&deviceId=d2`)).toEqual([]);
    expect(await ids(`/analytics/playlogs?${R}&fileId=f1&limit=1`)).toEqual(['rp1']);
    expect(await ids(`/analytics/playlogs?${R}&fileId=no-such-file`)).toEqual([]);
    expect(await ids(`/analytics/impressions?${R}&fileId=f1`)).toEqual(['ri1']);
    expect(await ids(`/analytics/impressions?${R}&fileId=f2`)).toEqual([]);
    const csv = await get(`/analytics/playlogs?${R}&fileId=f2`, { accept: 'text/csv' });
    expect(csv.text.split('\r\n').filter(Boolean)).toHaveLength(2);
  });

  test("another account's file id filters to nothing and leaks nothing", async () => {
    // rp8 (file fx) and rp9 (file f1) are another account's plays in the same range.
    const fx = await get(`/analytics/playlogs?${R}&fileId=fx`);
    expect([fx.status, JSON.parse(fx.text)]).toEqual([200, []]);
    expect(fx.text).not.toContain('secret.mp4');
    expect((await json(`/analytics/playlogs?${R}&fileId=f1&fileId=fx`)).map((r) => r.id)).toEqual(['rp1', 'rp2']);
    expect(await json(`/analytics/mediaplaystats?${R}&fileId=fx`)).toEqual([]);
    expect((await json(`/analytics/playlogs?${R}&fileId=f1`)).every((r) => r.duration !== 99)).toBe(true);
  });

  test('interval is taken in any case (the spec lowercase, the GraphQL DAY, Day); a value matching none is refused', async () => {
    const day = await json(`/analytics/eventmetrics?${R}&interval=day`);
    expect(day).toHaveLength(2);
    for (const v of ['DAY', 'Day', 'dAy']) expect([v, await json(`/analytics/eventmetrics?${R}&interval=${v}`)]).toEqual([v, day]);
    expect(await json(`/analytics/playstatsbytime?${R}&interval=HOUR`)).toHaveLength(48);
    expect(await json(`/analytics/pinglogs?${R}&interval=Month`)).toHaveLength(1);
    const bad = await get(`/analytics/eventmetrics?${R}&interval=DAILY`);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatchObject({ field: 'interval', message: 'interval must be one of: minute, hour, day, week, month' });
  });
});

test('another account sees none of these rows', async () => {
  const other = await get(`/analytics/playlogs?${R}`, {}); // baseline: the caller's three
  expect(JSON.parse(other.text)).toHaveLength(3);
  const noKey = await fetch(`${h.baseUrl}/analytics/playlogs?${R}`);
  expect(noKey.status).toBe(401);
});

describe('legacy datasets', () => {
  const legacy = async (path: string, init: RequestInit = {}) => {
    const url = new URL(path, h.legacyUrl);
    url.searchParams.set('api_key', TEST_KEY);
    const res = await fetch(url, init);
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  test('json, xml and JSONP', async () => {
    const j = await legacy(`/analytics/mediaplaystats?${R}&groupByDevice=true`);
    expect(j.status).toBe(200);
    expect(JSON.parse(j.text)).toMatchObject([
      { device_id: 'd1', file_id: 'f1', total_plays: 2 },
      { device_id: 'd2', file_id: 'f2', total_plays: 1 },
    ]);
    const x = await legacy(`/analytics/eventflow?${R}&format=xml`);
    expect(x.type).toMatch(/xml/);
    expect(x.text).toContain('<dataset>');
    expect(x.text).toMatch(/<row>\s*<source>home<\/source>\s*<target>menu<\/target>\s*<count>1<\/count>\s*<\/row>/);
    const p = await legacy(`/analytics/playlogs?${R}&deviceId=d2&callback=show`);
    expect(p.text).toMatch(/show\(\[/);
    expect(p.text).toContain('"id":"rp3"');
  });

  test('POST /analytics/dataset with a JSON body; refusals name the parameter in the requested format', async () => {
    const r = await legacy('/analytics/dataset', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dataset: 'devicemetrics', startDate: '2026-05-04', endDate: '2026-05-04', interval: 'hour' }),
    });
    expect(r.status).toBe(200);
    const rows = JSON.parse(r.text) as { period_start: string; avg_cpu_usage: number }[];
    expect(rows).toHaveLength(24);
    expect(rows[10]).toMatchObject({ period_start: '2026-05-04T10:00:00Z', avg_cpu_usage: 40 });
    const bad = await legacy(`/analytics/playstatsbytime?${R}&interval=fortnight&format=xml`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('interval');
    expect((await legacy(`/analytics/nosuch?${R}`)).status).toBe(400);
  });

  test('a bad limit is a 400 naming the field, in our words, in json, xml and JSONP', async () => {
    const j = await legacy(`/analytics/playlogs?${R}&limit=10001`);
    expect([j.status, j.type]).toEqual([400, 'application/json; charset=utf-8']);
    expect(JSON.parse(j.text).error).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit', message: 'limit must be at most 10000' });
    const x = await legacy(`/analytics/playlogs?${R}&limit=10001&format=xml`);
    expect([x.status, x.type]).toEqual([400, 'application/xml; charset=utf-8']);
    expect(x.text).toMatch(/<error><code>BAD_USER_INPUT<\/code><message>limit must be at most 10000<\/message><field>limit<\/field>/);
    const p = await legacy(`/analytics/playlogs?${R}&limit=-1&callback=show`);
    expect(p.status).toBe(400);
    expect(p.text).toMatch(/&& show\(\{"error":\{/);
    expect(p.text).toContain('"field":"limit"');
    expect(p.text).toContain('limit must be at least 0');
    const notNumber = await legacy(`/analytics/playlogs?${R}&limit=lots`);
    expect(JSON.parse(notNumber.text).error).toMatchObject({ field: 'limit', message: 'limit must be a number' });
    const interval = await legacy(`/analytics/playstatsbytime?${R}&interval=fortnight&format=xml`);
    expect(interval.text).toContain('<message>interval must be one of: minute, hour, day, week, month</message><field>interval</field>');
  });

  test('every dataset takes the common parameters; fileId filters play logs; interval in any case', async () => {
    const rows = async (path: string) => {
      const r = await legacy(path);
      expect([path, r.status]).toEqual([path, 200]);
      return JSON.parse(r.text) as Record<string, unknown>[];
    };
    expect((await rows(`/analytics/playlogs?${R}&fileId=f1`)).map((r) => r.id)).toEqual(['rp1', 'rp2']);
    expect(await rows(`/analytics/playlogs?${R}&fileId=fx`)).toEqual([]);
    expect(await rows(`/analytics/pinglogs?${R}&interval=hour&fileId=f1&eventName=x&groupByDevice=true`)).toEqual(await rows(`/analytics/pinglogs?${R}`));
    expect(await rows(`/analytics/playstatsbytime?${R}&interval=DAY`)).toEqual(await rows(`/analytics/playstatsbytime?${R}&interval=day`));
    expect(await rows(`/analytics/playstatsbytime?${R}&interval=Hour`)).toHaveLength(48);
    const posted = await legacy('/analytics/dataset', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dataset: 'playlogs', startDate: '2026-05-04', endDate: '2026-05-05', fileId: ['f1'], interval: 'DAY', eventName: ['x'] }),
    });
    expect([posted.status, (JSON.parse(posted.text) as { id: string }[]).map((r) => r.id)]).toEqual([200, ['rp1', 'rp2']]);
    expect((await legacy(`/analytics/pinglogs?${R}&interval=fortnight`)).status).toBe(400);
    const x = await legacy(`/analytics/playlogs?${R}&fileId=f2&format=xml`);
    expect(x.text).toMatch(/<row>\s*<id>rp3<\/id>/);
  });
});

test("deviceName is the device's current name from the devices subgraph, null once it is deleted", async () => {
  const headers = { 'x-service-apikey': TEST_KEY, 'content-type': 'application/json' };
  const created = await fetch(`${h.baseUrl}/devices`, { method: 'POST', headers, body: JSON.stringify({ name: 'Named lobby screen' }) });
  expect(created.status).toBeLessThan(300);
  const { id } = (await created.json()) as { id: string };
  await h.analytics.insert('play_logs', [
    playRow({ id: 'rn1', account_id: ACC, device_id: id, file_id: 'f1', timestamp: '2026-06-01T10:00:00Z', duration: 5 }),
  ]);
  const stats = async () => {
    const res = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        query: 'query($d: [String!]) { devicePlayStats(startDate: "2026-06-01", endDate: "2026-06-01", deviceId: $d) { deviceId deviceName totalPlays } }',
        variables: { d: [id, 'd1'] },
      }),
    });
    return ((await res.json()) as { data: { devicePlayStats: { deviceId: string; deviceName: string | null; totalPlays: number }[] } }).data.devicePlayStats;
  };
  expect(await stats()).toEqual([{ deviceId: id, deviceName: 'Named lobby screen', totalPlays: 1 }]);
  expect((await fetch(`${h.baseUrl}/devices/${id}`, { method: 'DELETE', headers })).status).toBeLessThan(300);
  expect(await stats()).toEqual([{ deviceId: id, deviceName: null, totalPlays: 1 }]);
});

describe('issue 18 review: zoned days, uptime so far, listed devices', () => {
  test('with timeZone, a date alone is that local day: one New York day is one period, not two half days', async () => {
    expect(await json('/analytics/audiencemetrics?startDate=2026-05-04&endDate=2026-05-04&interval=day&timeZone=America/New_York')).toMatchObject([
      { device_id: 'd1', period_start: '2026-05-04T04:00:00Z', period_end: '2026-05-05T04:00:00Z', total_impressions: 1 },
    ]);
    // Without timeZone the same dates are the UTC day, as before.
    expect(await json('/analytics/audiencemetrics?startDate=2026-05-04&endDate=2026-05-04&interval=day')).toMatchObject([
      { device_id: 'd1', period_start: '2026-05-04T00:00:00Z', period_end: '2026-05-05T00:00:00Z', total_impressions: 1 },
    ]);
  });

  test('uptime counts the minutes begun by now: a device pinging every minute since the range began is 100 %', async () => {
    const MIN = 60_000;
    // Start early in a minute, so the insert and the query (well under 10 s) see the same one.
    if (Date.now() % MIN > 50_000) await new Promise((r) => setTimeout(r, MIN - (Date.now() % MIN) + 50));
    const m0 = Math.floor(Date.now() / MIN) * MIN - 3 * MIN;
    // One ping in each of the four minutes m0 .. m0+3 (the current one), none in the future.
    await h.analytics.insert(
      'ping_logs',
      [0, 1, 2, 3].map((i) => ({
        id: `up${i}`,
        account_id: ACC,
        device_id: 'd-up',
        timestamp: new Date(Math.min(m0 + i * MIN + 1_000, Date.now())).toISOString(),
        cpu_usage: 10,
        memory_usage: 10,
        disk_usage: 10,
        player_version: '',
        ip_address: '',
        external_ip_address: '',
      })),
    );
    const iso = (t: number) => new Date(t).toISOString();
    const before = Date.now();
    // The range runs ten minutes past now (the old denominator: 11 minutes, 36 %).
    const rows = await json(`/analytics/devicemetrics?startDate=${iso(m0)}&endDate=${iso(m0 + 10 * MIN)}&interval=month&deviceId=d-up`);
    const after = Date.now();
    // The minutes begun when the query ran: 4 (still in the fourth minute) or 5 (the clock moved on).
    const expected = [before, after].map((t) => (100 * 4) / Math.ceil((t - m0) / MIN));
    expect(rows).toHaveLength(1);
    expect(expected).toContain(rows[0]!.uptime_percentage);
    expect(rows[0]!.uptime_percentage).toBe(100);
  }, 120_000);

  test("each listed device of the caller's has its series, zeros without pings; ids not the caller's stay out", async () => {
    const headers = { 'x-service-apikey': TEST_KEY, 'content-type': 'application/json' };
    const created = await fetch(`${h.baseUrl}/devices`, { method: 'POST', headers, body: JSON.stringify({ name: 'Never pinged' }) });
    expect(created.status).toBeLessThan(300);
    const { id } = (await created.json()) as { id: string };
    const rows = await json(`/analytics/devicemetrics?${R}&interval=day&deviceId=d1&deviceId=${id}&deviceId=no-such-device`);
    expect(rows.map((r) => [r.device_id, r.period_start, r.uptime_percentage, r.alert_count])).toEqual(
      [
        ['d1', '2026-05-04T00:00:00Z', 100 / 1440, 0],
        ['d1', '2026-05-05T00:00:00Z', 0, 0],
        [id, '2026-05-04T00:00:00Z', 0, 0],
        [id, '2026-05-05T00:00:00Z', 0, 0],
      ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
    // Without deviceId: the devices that pinged in the range only.
    expect([...new Set((await json(`/analytics/devicemetrics?${R}&interval=day`)).map((r) => r.device_id))]).toEqual(['d1']);
  });
});

test('GraphQL where / order on the analytics queries through the gateway: filter and sort before the limit, refusals, never another account', async () => {
  const gql = async (query: string) => {
    const res = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'x-service-apikey': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as {
      data?: Record<string, Record<string, unknown>[] | null>;
      errors?: { message: string; extensions?: Record<string, unknown> }[];
    };
  };
  const rows = async (query: string) => {
    const r = await gql(query);
    expect(r.errors).toBeUndefined();
    return Object.values(r.data!)[0]!;
  };
  const D = 'startDate: "2026-05-04", endDate: "2026-05-06"';
  expect(await rows(`{ impressions(${D}, where: { sensor: { eq: "face" } }, order: [{ timestamp: DESC }]) { id sensor } }`)).toEqual([
    { id: 'ri1', sensor: 'face' },
  ]);
  expect(await rows(`{ impressions(${D}, where: { sensor: { eq: "motion" } }) { id } }`)).toEqual([]);
  // Top files with over one play, most played first, cut after the filter; rp9 (another account) never counts.
  expect(await rows(`{ mediaPlayStats(${D}, where: { totalPlays: { gt: 1 } }, order: [{ totalPlays: DESC }], limit: 10) { fileId totalPlays } }`)).toEqual([
    { fileId: 'f1', totalPlays: 2 },
  ]);
  expect(await rows(`{ mediaPlayStats(${D}, order: [{ avgDuration: DESC }], limit: 1) { fileId avgDuration } }`)).toEqual([{ fileId: 'f2', avgDuration: 30 }]);
  expect(await rows(`{ mediaPlayStats(${D}, where: { totalDuration: { gt: 50 } }) { fileId } }`)).toEqual([]);
  // The series: the empty day is a record with zeros.
  expect(await rows(`{ playStatsByTime(${D}, where: { totalPlays: { eq: 0 } }) { periodStart totalPlays } }`)).toEqual([
    { periodStart: '2026-05-06T00:00:00Z', totalPlays: 0 },
  ]);
  const unknown = await gql(`{ devicePlayStats(${D}, where: { deviceName: { eq: "x" } }) { deviceId } }`);
  expect(unknown.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  const wrongOp = await gql(`{ mediaPlayStats(${D}, where: { totalPlays: { startsWith: "1" } }) { fileId } }`);
  expect(wrongOp.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  const badDate = await gql(`{ playStatsByTime(${D}, where: { periodStart: { gt: "soon" } }) { totalPlays } }`);
  expect(badDate.errors?.[0]).toMatchObject({ message: expect.stringContaining('where.periodStart'), extensions: { code: 'BAD_USER_INPUT' } });
});
