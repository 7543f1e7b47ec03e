/**
 * The /analytics REST endpoints through the all-in-one server (responses validated by the
 * conformance check the harness registers): every GET dataset, the common parameters and their
 * refusals (400 naming the parameter), groupByDevice/source picking the record, CSV by Accept
 * (formula-safe), POST /analytics/dataset, and tenancy.
 */
import { startHarness, TEST_KEY, type Harness } from './harness.js';

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
  const play = (id: string, device: string, file: string, ts: string, duration: number, name = `${file}.mp4`, account = ACC) => ({
    id,
    account_id: account,
    device_id: device,
    file_id: file,
    file_name: name,
    timestamp: ts,
    duration,
    type: 'VIDEO',
    playlist_id: '',
    schedule_id: '',
  });
  await h.analytics.insert('play_logs', [
    play('rp1', 'd1', 'f1', '2026-05-04T10:00:00Z', 10, '=HYPERLINK("x")'),
    play('rp2', 'd1', 'f1', '2026-05-04T11:00:00Z', 20, '=HYPERLINK("x")'),
    play('rp3', 'd2', 'f2', '2026-05-05T09:00:00Z', 30, 'Lobby, west.mp4'),
    play('rp9', 'd1', 'f1', '2026-05-04T10:00:00Z', 99, 'other.mp4', 'other-account'),
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
    [`/analytics/playlogs?${R}&fileId=f1`, 'fileId'],
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
  const csv = await post({ dataset: 'eventflow', startDate: '2026-05-04', endDate: '2026-05-05' }, { accept: 'text/csv' });
  expect(await csv.text()).toBe('source,target,count\r\nhome,menu,1\r\n');
  for (const [body, field] of [
    [{ dataset: 'nope', startDate: '2026-05-04', endDate: '2026-05-05' }, 'dataset'],
    [{ dataset: 'playlogs', startDate: '2026-05-04', endDate: '2026-05-05', interval: 'day' }, 'interval'],
    [{ dataset: 'playlogs', startDate: '2026-05-04', endDate: '2026-05-05', limit: 20000 }, 'limit'],
  ] as const) {
    const bad = await post(body);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toMatch(new RegExp(field));
  }
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
    expect((await legacy(`/analytics/playlogs?${R}&limit=10001`)).status).toBe(400);
    expect((await legacy(`/analytics/playlogs?${R}&fileId=f1`)).status).toBe(400);
  });
});

test("deviceName is the device's current name from the devices subgraph, null once it is deleted", async () => {
  const headers = { 'x-service-apikey': TEST_KEY, 'content-type': 'application/json' };
  const created = await fetch(`${h.baseUrl}/devices`, { method: 'POST', headers, body: JSON.stringify({ name: 'Named lobby screen' }) });
  expect(created.status).toBeLessThan(300);
  const { id } = (await created.json()) as { id: string };
  await h.analytics.insert('play_logs', [
    {
      id: 'rn1',
      account_id: ACC,
      device_id: id,
      file_id: 'f1',
      file_name: 'f1.mp4',
      timestamp: '2026-06-01T10:00:00Z',
      duration: 5,
      type: 'VIDEO',
      playlist_id: '',
      schedule_id: '',
    },
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
