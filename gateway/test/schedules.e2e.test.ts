/**
 * Schedules through the all-in-one server over real HTTP: REST CRUD in the reference's shapes
 * (responses validated against the reference by the harness), every refusal naming its property,
 * GraphQL writes and nowPlaying / deviceTimeline resolved across subgraphs (device zone from
 * devices, content from content by entity reference), and cross-account isolation.
 */
import { startHarness, type Harness } from './harness.js';
import { otherAccountKey } from './other-account.js';

type Json = Record<string, any>;
let h: Harness;
let otherKey: string;
let playlistId: string;
let templateId: string;
let deviceId: string;
let foreignDevice: string;
let foreignPlaylist: string;

async function call(method: string, path: string, body?: unknown, opts: { key?: string; type?: string } = {}): Promise<{ status: number; body: Json | any }> {
  const headers: Record<string, string> = { 'x-service-apikey': opts.key ?? h.key };
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(`${h.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const gqlData = async (query: string, variables: Record<string, unknown> = {}, key?: string) => {
  const r = await h.gql(query, { variables, ...(key ? { key } : {}) });
  expect(r.body.errors).toBeUndefined();
  return r.body.data as Json;
};

beforeAll(async () => {
  h = await startHarness();
  otherKey = await otherAccountKey(h, 'schedules-e2e-other', 'o@other.example');
  playlistId = (await gqlData('mutation { createPlaylist(input: { name: "Sched list" }) { playlist { id } } }')).createPlaylist.playlist.id;
  templateId = (await gqlData('mutation { createTemplate(input: { name: "Sched layout", width: 1920, height: 1080 }) { template { id } } }')).createTemplate
    .template.id;
  deviceId = (await gqlData('mutation { createDevice(input: { name: "Sched screen", timezone: "Europe/Amsterdam" }) { device { id } } }')).createDevice.device
    .id;
  foreignDevice = (await gqlData('mutation { createDevice(input: { name: "Theirs" }) { device { id } } }', {}, otherKey)).createDevice.device.id;
  foreignPlaylist = (await gqlData('mutation { createPlaylist(input: { name: "Theirs" }) { playlist { id } } }', {}, otherKey)).createPlaylist.playlist.id;
}, 90_000);
afterAll(() => h.stop());

test('REST: create, list with every filter, get, replace, patch, delete; bodies in the reference shape', async () => {
  const made = await call('POST', '/schedules', {
    name: 'Weekday mornings',
    type: 'Playlist',
    playlist_id: playlistId,
    start_date: '2026-01-01',
    end_date: '2026-12-31',
    start_time: '08:00',
    end_time: '12:00',
    saturday: false,
    sunday: false,
    priority: 'High',
    devices: [{ id: deviceId }],
    tags: 'food,promo',
    conditions: [],
  });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({
    name: 'Weekday mornings',
    type: 'Playlist',
    priority: 'High',
    playlist_id: playlistId,
    template_id: null,
    start_time: '08:00:00',
    end_time: '12:00:00',
    monday: true,
    saturday: false,
    devices: [{ id: deviceId }],
    tags: 'food,promo',
    start_date: '2026-01-01T00:00:00Z',
  });
  const id = made.body.id as string;
  const group = await call('POST', '/schedules/groups', { name: 'Mornings' });
  expect(group.status).toBe(201);
  expect(
    (
      await call('PUT', `/schedules/${id}`, {
        name: 'Template mornings',
        type: 'Template',
        template_id: templateId,
        devices: [{ id: deviceId }],
        group_id: group.body.id,
        priority: 'Lowest',
      })
    ).status,
  ).toBe(204);
  const read = await call('GET', `/schedules/${id}`);
  expect(read.body).toMatchObject({
    name: 'Template mornings',
    type: 'Template',
    template_id: templateId,
    playlist_id: null,
    priority: 'Lowest',
    group_id: group.body.id,
    group_name: 'Mornings',
    start_time: null,
    tags: '',
  });
  expect((await call('GET', `/schedules?device_id=${deviceId}`)).body.map((s: Json) => s.id)).toContain(id);
  expect((await call('GET', `/schedules?group_id=${group.body.id}`)).body.map((s: Json) => s.id)).toEqual([id]);
  expect((await call('GET', '/schedules?group_name=Mornings&take=1&page=0')).body).toHaveLength(1);
  expect((await call('GET', `/schedules?id=${id}`)).body).toHaveLength(1);
  const patched = await call(
    'PATCH',
    `/schedules/${id}`,
    [
      { op: 'replace', path: '/start_time', value: '22:00' },
      { op: 'replace', path: '/end_time', value: '06:00' },
      { op: 'replace', path: '/priority', value: 'Highest' },
    ],
    { type: 'application/json-patch+json' },
  );
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ start_time: '22:00:00', end_time: '06:00:00', priority: 'Highest' });
  expect((await call('GET', '/schedules/groups')).body).toEqual([expect.objectContaining({ name: 'Mornings', count: 1, level: 0 })]);
  expect((await call('PUT', `/schedules/groups/${group.body.id}`, { name: 'Nights' })).status).toBe(204);
  expect((await call('GET', `/schedules/${id}`)).body.group_name).toBe('Nights');
  expect((await call('DELETE', `/schedules/groups/${group.body.id}`)).status).toBe(204);
  expect((await call('DELETE', `/schedules/${id}`)).status).toBe(204);
  expect((await call('GET', `/schedules/${id}`)).status).toBe(404);
});

test.each([
  [{ name: 'x', type: 'Playlist' }, 'playlist_id'],
  [{ name: 'x', type: 'Playlist', playlist_id: 'nope' }, 'playlist_id'],
  [{ name: 'x', type: 'Template', template_id: 'nope' }, 'template_id'],
  [{ name: 'x', type: 'Campaign' }, 'type'],
  [{ name: 'x', type: 'Sometimes', playlist_id: 'p' }, 'type'],
  [{ name: 'x', priority: 'Urgent', playlist_id: 'p' }, 'priority'],
  [{ name: 'x', start_date: '2026-05-02', end_date: '2026-05-01' }, 'end_date'],
  [{ name: 'x', start_time: '7 pm' }, 'start_time'],
  [{ name: 'x', start_time: '09:00', end_time: '09:00' }, 'end_time'],
  [{ name: 'x', devices: [{ id: 'nope' }] }, 'devices'],
  [{ name: 'x', group_id: 'nope' }, 'group_id'],
  [{ name: 'x', bogus: true }, 'bogus'],
])('REST refuses %j with 400 naming %s', async (body, field) => {
  const withContent = 'type' in body || 'playlist_id' in body ? body : { ...body, playlist_id: playlistId };
  const r = await call('POST', '/schedules', withContent);
  expect(r.status).toBe(400);
  expect(JSON.stringify(r.body)).toContain(field);
});

test("another account's playlist, device and schedules look unknown", async () => {
  expect((await call('POST', '/schedules', { name: 'x', playlist_id: foreignPlaylist })).status).toBe(400);
  expect((await call('POST', '/schedules', { name: 'x', playlist_id: playlistId, devices: [{ id: foreignDevice }] })).status).toBe(400);
  const mine = (await call('POST', '/schedules', { name: 'Mine', playlist_id: playlistId })).body.id;
  expect((await call('GET', `/schedules/${mine}`, undefined, { key: otherKey })).status).toBe(404);
  expect((await call('PUT', `/schedules/${mine}`, { name: 'Stolen', playlist_id: foreignPlaylist }, { key: otherKey })).status).toBe(404);
  expect((await call('DELETE', `/schedules/${mine}`, undefined, { key: otherKey })).status).toBe(404);
  expect((await call('GET', '/schedules', undefined, { key: otherKey })).body).toEqual([]);
  const r = await h.gql(`{ nowPlaying(deviceId: "${deviceId}") { timezone } }`, { key: otherKey });
  expect(r.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
});

test('GraphQL through the gateway: nowPlaying with content resolved by the content subgraph, and the timeline', async () => {
  const created = await gqlData(`mutation($i: ScheduleInput!) { createSchedule(input: $i) { success errorField schedule { id } } }`, {
    i: { name: 'Lunch', playlistId, startTime: '12:00', endTime: '13:00', priority: 'HIGHEST', deviceIds: [deviceId] },
  });
  expect(created.createSchedule.success).toBe(true);
  const id = created.createSchedule.schedule.id;
  // 10:30Z is 12:30 in Amsterdam (CEST).
  const now = await gqlData(
    `query($d: ID!) { nowPlaying(deviceId: $d, at: "2026-06-01T10:30:00Z") { timezone localTime schedule { id name } content { type playlist { id name } }
    considered { schedule { id } verdict reason } nextChange } }`,
    { d: deviceId },
  );
  expect(now.nowPlaying).toMatchObject({
    timezone: 'Europe/Amsterdam',
    localTime: '2026-06-01T12:30:00',
    schedule: { id, name: 'Lunch' },
    content: { type: 'PLAYLIST', playlist: { id: playlistId, name: 'Sched list' } },
    nextChange: '2026-06-01T11:00:00Z',
  });
  const tl = await gqlData(
    `query($d: ID!) { deviceTimeline(deviceId: $d, from: "2026-06-01T00:00:00Z", to: "2026-06-02T00:00:00Z") { segments { from to schedule { name } } } }`,
    { d: deviceId },
  );
  expect(tl.deviceTimeline.segments).toContainEqual({ from: '2026-06-01T10:00:00Z', to: '2026-06-01T11:00:00Z', schedule: { name: 'Lunch' } });
  const sched = await gqlData(`query($d: String) { schedule(deviceId: $d) { id devices { id name } } }`, { d: deviceId });
  expect(sched.schedule).toContainEqual({ id, devices: [{ id: deviceId, name: 'Sched screen' }] });
  expect((await gqlData(`mutation($id: ID!) { deleteSchedule(id: $id) { success } }`, { id })).deleteSchedule.success).toBe(true);
});

test('legacy GET /schedules in json, xml and JSONP', async () => {
  const made = (await call('POST', '/schedules', { name: 'Legacy listed', playlist_id: playlistId, devices: [{ id: deviceId }] })).body.id;
  const url = (format: string, extra = '') => `${h.legacyUrl}/schedules?api_key=${encodeURIComponent(h.key)}&format=${format}&device_id=${deviceId}${extra}`;
  const json = await fetch(url('json'));
  expect(json.status).toBe(200);
  expect(JSON.stringify(await json.json())).toContain(made);
  const xml = await (await fetch(url('xml'))).text();
  expect(xml).toMatch(/<schedules>[\s\S]*<schedule>[\s\S]*Legacy listed/);
  const jsonp = await (await fetch(url('json', '&callback=cb'))).text();
  expect(jsonp).toMatch(/cb\(/);
  expect(jsonp).toContain(made);
  const foreign = await (await fetch(`${h.legacyUrl}/schedules?api_key=${encodeURIComponent(otherKey)}&format=json`)).text();
  expect(foreign).not.toContain(made);
});

test('legacy GET /schedules: JSONP runs as a guarded script call, xml nests devices, bad parameters are 400 naming them', async () => {
  const made = (
    await call('POST', '/schedules', { name: 'Legacy formats', playlist_id: playlistId, devices: [{ id: deviceId }], start_time: '09:00', end_time: '17:30' })
  ).body.id as string;
  const base = `${h.legacyUrl}/schedules?api_key=${encodeURIComponent(h.key)}&device_id=${deviceId}`;
  const jsonp = await fetch(`${base}&callback=show`);
  expect(jsonp.status).toBe(200);
  expect(jsonp.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(jsonp.headers.get('x-content-type-options')).toBe('nosniff');
  let received: Json[] | undefined;
  new Function('show', await jsonp.text())((v: Json[]) => (received = v));
  expect(received?.find((s) => s.id === made)).toMatchObject({
    name: 'Legacy formats',
    start_time: '09:00:00',
    end_time: '17:30:00',
    playlist_id: playlistId,
    devices: [{ id: deviceId }],
  });

  const xml = await fetch(`${base}&format=xml`);
  expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
  const text = await xml.text();
  expect(text.startsWith('<?xml version="1.0" encoding="UTF-8"?><schedules>')).toBe(true);
  expect(text).toContain(`<id>${made}</id>`);
  expect(text).toContain('<template_id nil="true"/>');
  expect(text).toMatch(new RegExp(`<devices>\\s*<device>\\s*<id>${deviceId}</id>`));

  const bad = await fetch(`${h.legacyUrl}/schedules?api_key=${encodeURIComponent(h.key)}&take=-1`);
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain('take');
  expect((await fetch(`${base}&callback=${encodeURIComponent('alert(1)//')}`)).status).toBe(400);
});
