/**
 * Reports a client can check, over HTTP as `npm start` serves them (issue 18, items 4 and 6):
 * - a file or device deleted since its plays can still be named in an export (the account's own
 *   telemetry recorded it), while another account's ids and ids never seen stay 404;
 * - the proof-of-play digest covers each play's fixed facts, so renaming a device does not change
 *   it, and the test recomputes it from the exported rows as the file describes;
 * - proof of play names the playlist and schedule beside their ids (empty once deleted);
 * - device uptime is deviceMetrics' uptime (minutes with a ping / minutes of the period), every
 *   device listed for every period, a silent one at 0 %.
 */
import { createHash } from 'node:crypto';
import { createAccount, createApiKey, createUser, type IdentityService } from '@pylon/identity';
import { insertMedia, startHarness, type Harness } from './harness.js';
import { printedFields } from '../../services/analytics/test/fixtures/csv-fields.js';
import { pingRow } from '../../services/analytics/test/fixtures/telemetry-rows.js';

const A = 'tenant-proof';
const B = 'tenant-proof-other';
let h: Harness;
let keyA: string;
let keyB: string;
/** A's devices: kept (renamed later), deleted, silent (never pings). */
let kept: string;
let gone: string;
let silent: string;
/** A's media, deleted after its plays. */
let goneMedia: string;
/** B's device and media (B deletes its device too). */
let foreignDevice: string;
let foreignMedia: string;
/** A's playlist and schedule (kept), and a playlist deleted after its plays. */
let playlist: string;
let schedule: string;
let gonePlaylist: string;

async function account(id: string): Promise<string> {
  const identity = h.subgraphs.identity as unknown as IdentityService;
  await createAccount(identity.repo, { id, name: id, timezone: 'UTC' });
  const owner = await createUser(identity.repo, { accountId: id, username: `owner@${id}.example`, roles: ['Owner', 'API'] });
  return (await createApiKey(identity.repo, { accountId: id, userId: owner.id, name: 'k' })).value;
}

const call = (key: string, method: string, path: string, body?: unknown, type = 'application/json') =>
  fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { 'x-service-apikey': key, 'content-type': type },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function device(key: string, name: string): Promise<string> {
  const res = await call(key, 'POST', '/devices', { name });
  expect(res.status).toBeLessThan(300);
  return ((await res.json()) as { id: string }).id;
}

const media = (accountId: string, name: string): Promise<string> => insertMedia(h, accountId, { name, fileName: `${name}.mp4`, mimeType: 'video/mp4' });

async function mutate<T>(key: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await h.gql(query, { variables, key });
  const payload = Object.values(res.body.data ?? {})[0] as { success: boolean; error: string | null } & T;
  expect([payload?.success, payload?.error]).toEqual([true, null]);
  return payload;
}

const newPlaylist = async (name: string) =>
  (
    await mutate<{ playlist: { id: string } }>(keyA, 'mutation($i: CreatePlaylistInput!) { createPlaylist(input: $i) { success error playlist { id } } }', {
      i: { name },
    })
  ).playlist.id;

const play = (
  id: string,
  account: string,
  dev: string,
  file: string,
  fileName: string,
  ts: string,
  duration: number,
  from: { playlist: string; schedule: string } = { playlist: 'pl-spring', schedule: 'sc-spring' },
) => ({
  id,
  account_id: account,
  device_id: dev,
  file_id: file,
  file_name: fileName,
  timestamp: ts,
  duration,
  type: 'video',
  playlist_id: from.playlist,
  schedule_id: from.schedule,
});

const ping = (id: string, account: string, dev: string, ts: number) =>
  pingRow({ id, account_id: account, device_id: dev, timestamp: new Date(ts).toISOString() });

const T10 = Date.UTC(2024, 4, 1, 10);

beforeAll(async () => {
  h = await startHarness();
  [keyA, keyB] = await Promise.all([account(A), account(B)]);
  [kept, gone, silent, foreignDevice] = await Promise.all([device(keyA, 'Lobby'), device(keyA, 'Old kiosk'), device(keyA, 'Silent'), device(keyB, 'B screen')]);
  [goneMedia, foreignMedia] = await Promise.all([media(A, 'spring-campaign'), media(B, 'b-clip')]);
  [playlist, gonePlaylist] = await Promise.all([newPlaylist('Spring loop'), newPlaylist('Winter loop')]);
  schedule = (
    await mutate<{ schedule: { id: string } }>(keyA, 'mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error schedule { id } } }', {
      i: { name: 'Spring campaign', playlistId: playlist },
    })
  ).schedule.id;
  const spring = { playlist, schedule };
  await h.analytics.insert('play_logs', [
    play('pp1', A, kept, goneMedia, 'spring-campaign.mp4', '2024-05-01T10:00:00.000Z', 15, spring),
    play('pp2', A, kept, goneMedia, 'spring-campaign.mp4', '2024-05-01T10:30:00.000Z', 15, spring),
    play('pp3', A, gone, goneMedia, 'spring-campaign.mp4', '2024-05-01T10:05:00.000Z', 15.5, spring),
    play('pp4', A, gone, 'still-here', 'Menu, "daily".png', '2024-05-01T11:00:00.000Z', 8.25, { playlist: gonePlaylist, schedule: 'sc-never' }),
    play('pb1', B, foreignDevice, foreignMedia, 'b-clip.mp4', '2024-05-01T10:00:00.000Z', 9),
  ]);
  // kept pings every minute 10:00-10:29 (30 of the hour's 60 minutes); gone every minute of the hour.
  await h.analytics.insert('ping_logs', [
    ...Array.from({ length: 30 }, (_, i) => ping(`k${i}`, A, kept, T10 + i * 60_000)),
    ...Array.from({ length: 60 }, (_, i) => ping(`g${i}`, A, gone, T10 + i * 60_000 + 15_000)),
    ping('b0', B, foreignDevice, T10),
  ]);
  expect((await call(keyA, 'DELETE', `/media/${goneMedia}`)).status).toBeLessThan(300);
  await mutate(keyA, 'mutation($id: ID!) { deletePlaylist(id: $id) { success error } }', { id: gonePlaylist });
  expect((await call(keyA, 'DELETE', `/devices/${gone}`)).status).toBeLessThan(300);
  expect((await call(keyB, 'DELETE', `/devices/${foreignDevice}`)).status).toBeLessThan(300);
}, 90_000);
afterAll(() => h.stop());

const POP = { report_id: 'proof_of_play', start_date: '2024-05-01', end_date: '2024-05-01' };

/** Header, row lines and summary pairs (values unquoted) of an exported CSV. */
async function exportCsv(key: string, body: Record<string, unknown>) {
  const res = await call(key, 'POST', '/report/export', body);
  expect(res.status).toBe(200);
  const [table, summary] = (await res.text()).split('\r\n\r\n') as [string, string];
  const lines = table.split('\r\n');
  const pairs = Object.fromEntries(
    summary
      .trim()
      .split('\r\n')
      .map((l) => printedFields(l).map((f) => (f.startsWith('"') ? f.slice(1, -1).replaceAll('""', '"') : f))),
  ) as Record<string, string>;
  return { header: printedFields(lines[0]!), rows: lines.slice(1).map(printedFields), pairs };
}

const refusal = async (key: string, body: Record<string, unknown>) => {
  const res = await call(key, 'POST', '/report/export', body);
  return [res.status, ((await res.json()) as { error: { field?: string } }).error.field];
};

describe('deleted files and devices stay provable', () => {
  test('a deleted media id is accepted: its plays are exported with the file name they had', async () => {
    expect((await call(keyA, 'GET', `/media/${goneMedia}`)).status).toBe(404);
    const { rows, pairs } = await exportCsv(keyA, { ...POP, media_id: [goneMedia] });
    expect(rows.map((r) => r.at(-1)).sort()).toEqual(['pp1', 'pp2', 'pp3']);
    expect(rows.every((r) => r[3] === goneMedia && r[4] === 'spring-campaign.mp4')).toBe(true);
    expect(pairs['Total Duration (s)']).toBe('45.5');
  });

  test('a deleted device id is accepted: its plays are exported, the device shown by its id', async () => {
    const { rows } = await exportCsv(keyA, { ...POP, device_id: [gone] });
    expect(rows.map((r) => [r.at(-1), r[1], r[2]])).toEqual([
      ['pp3', gone, gone],
      ['pp4', gone, gone],
    ]);
  });

  test("another account's ids (live or deleted) and ids never seen are 404 naming the field", async () => {
    expect(await refusal(keyA, { ...POP, media_id: [goneMedia, foreignMedia] })).toEqual([404, 'media_id[1]']);
    expect(await refusal(keyA, { ...POP, device_id: [foreignDevice] })).toEqual([404, 'device_id[0]']);
    expect(await refusal(keyA, { ...POP, device_id: [kept, 'never-existed'] })).toEqual([404, 'device_id[1]']);
    expect(await refusal(keyA, { ...POP, media_id: ['never-existed'] })).toEqual([404, 'media_id[0]']);
    // And the other way round: A's deleted ids are B's unknowns.
    expect(await refusal(keyB, { ...POP, device_id: [gone] })).toEqual([404, 'device_id[0]']);
    expect(await refusal(keyB, { ...POP, media_id: [goneMedia] })).toEqual([404, 'media_id[0]']);
  });
});

test('proof of play names the playlist and schedule beside their ids; a deleted one keeps its id with an empty name', async () => {
  const { header, rows } = await exportCsv(keyA, POP);
  expect(header.slice(6, 10)).toEqual(['Playlist ID', 'Playlist', 'Schedule ID', 'Schedule']);
  const byPlay = Object.fromEntries(rows.map((r) => [r.at(-1), r.slice(6, 10)]));
  expect(byPlay).toEqual({
    pp1: [playlist, 'Spring loop', schedule, 'Spring campaign'],
    pp2: [playlist, 'Spring loop', schedule, 'Spring campaign'],
    pp3: [playlist, 'Spring loop', schedule, 'Spring campaign'],
    pp4: [gonePlaylist, '', 'sc-never', ''],
  });
});

describe('the proof-of-play digest', () => {
  /** The digest recomputed from the rows, reading the rule the file prints (which columns, in which order). */
  function recompute(header: string[], rows: string[][], rule: string): string {
    const titles = /of the columns (.+) \(in this order\)/.exec(rule)![1]!.split(', ');
    const at = titles.map((t) => header.indexOf(t));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(rule).toContain('each line ended by \\n');
    return createHash('sha256')
      .update(rows.map((r) => at.map((i) => r[i]).join(',') + '\n').join(''))
      .digest('hex');
  }

  test('covers the fixed facts: renaming a device keeps it; another play set changes it; it is recomputed from the rows', async () => {
    const before = await exportCsv(keyA, POP);
    expect(before.rows).toHaveLength(4);
    expect(before.rows.find((r) => r.at(-1) === 'pp1')![2]).toBe('Lobby');
    const rule = before.pairs['SHA-256 computed over']!;
    expect(rule).toContain('Play ID, Device ID, File ID, File, Start (UTC), Duration (s), Playlist ID, Schedule ID');
    expect(recompute(before.header, before.rows, rule)).toBe(before.pairs['SHA-256 of rows']);

    const renamed = await call(keyA, 'PATCH', `/devices/${kept}`, [{ op: 'replace', path: '/name', value: 'Lobby (renamed)' }], 'application/json-patch+json');
    expect(renamed.status).toBeLessThan(300);
    const after = await exportCsv(keyA, POP);
    expect(after.rows.find((r) => r.at(-1) === 'pp1')![2]).toBe('Lobby (renamed)');
    expect(after.pairs['SHA-256 of rows']).toBe(before.pairs['SHA-256 of rows']);
    expect(recompute(after.header, after.rows, after.pairs['SHA-256 computed over']!)).toBe(after.pairs['SHA-256 of rows']);

    const fewer = await exportCsv(keyA, { ...POP, device_id: [kept] });
    expect(fewer.rows).toHaveLength(2);
    expect(fewer.pairs['SHA-256 of rows']).not.toBe(before.pairs['SHA-256 of rows']);
    expect(recompute(fewer.header, fewer.rows, fewer.pairs['SHA-256 computed over']!)).toBe(fewer.pairs['SHA-256 of rows']);
  });
});

describe('device uptime', () => {
  const HOUR = { report_id: 'device_uptime', interval_type: 'Hour', start_date: '2024-05-01T10:00:00Z', end_date: '2024-05-01T10:59:59.999Z' };

  test('every device for every period, uptime as deviceMetrics: 30 of 60 minutes = 50 %, a silent device 0 %, a deleted one by id', async () => {
    const { header, rows, pairs } = await exportCsv(keyA, HOUR);
    expect(header.slice(0, 4)).toEqual(['Period (UTC)', 'Device ID', 'Device', 'Uptime %']);
    const byDevice = Object.fromEntries(rows.map((r) => [r[1], [r[0], r[2], Number(r[3])]]));
    expect(byDevice).toEqual({
      [kept]: ['2024-05-01T10:00:00.000Z', expect.any(String), 50],
      [gone]: ['2024-05-01T10:00:00.000Z', gone, 100],
      [silent]: ['2024-05-01T10:00:00.000Z', 'Silent', 0],
    });
    // The average row is the mean of the rows.
    expect(Number(pairs['Average Uptime %'])).toBe(50);
    expect(pairs['Rows']).toBe('3');

    // The same figure as GraphQL deviceMetrics for the same range.
    const gql = await h.gql(
      `query($d: [String!]) { deviceMetrics(startDate: "2024-05-01T10:00:00Z", endDate: "2024-05-01T10:59:59.999Z", interval: HOUR, deviceId: $d) { deviceId uptimePercentage } }`,
      { variables: { d: [kept] }, key: keyA },
    );
    expect(gql.body.data?.deviceMetrics).toEqual([{ deviceId: kept, uptimePercentage: 50 }]);
  });

  test('periods without pings are rows at 0 %; a device_id filter lists exactly those devices', async () => {
    const { rows, pairs } = await exportCsv(keyA, { ...HOUR, end_date: '2024-05-01T11:59:59.999Z', device_id: [silent, kept] });
    expect(rows.map((r) => [r[0], r[1], Number(r[3])])).toEqual(
      [
        ['2024-05-01T10:00:00.000Z', kept, 50],
        ['2024-05-01T11:00:00.000Z', kept, 0],
        ['2024-05-01T10:00:00.000Z', silent, 0],
        ['2024-05-01T11:00:00.000Z', silent, 0],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1])) || String(a[0]).localeCompare(String(b[0]))),
    );
    expect(Number(pairs['Average Uptime %'])).toBe(12.5);
  });

  test('device_uptime refuses a daily window (it has none)', async () => {
    expect(await refusal(keyA, { ...HOUR, start_time: '2024-01-01T08:00:00Z', end_time: '2024-01-01T09:00:00Z' })).toEqual([400, 'start_time']);
  });
});
