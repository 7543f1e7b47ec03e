/**
 * Distributed mode: the analytics process serves the report files itself (internal token only) and
 * asks the devices process, as the caller, which device ids are the caller's, what they are called
 * and which devices the account has; the content and scheduling processes name the playlists and
 * schedules of proof of play.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import { INTERNAL_TOKEN_HEADER, InternalTokens, POLICIES, type Principal } from '@pylon/kit';
import { DEMO_ACCOUNT_ID } from '../../launcher/src/demo/seed-demo.js';
import { freePort, Processes, seedDemoStore } from './processes.js';
import { pingRow } from '../../services/analytics/test/fixtures/telemetry-rows.js';

const secret = randomBytes(32).toString('hex');
const tokens = new InternalTokens(secret);
let procs: Processes;
let analyticsUrl: string;
let device: { id: string; name: string };
let playlistId: string;
let scheduleId: string;
/** The content process (stopped by the last test: a subgraph down is a 503). */
let contentChild: ChildProcess;

const principal = (accountId: string): Principal => ({
  accountId,
  userId: 'u',
  userName: 'u',
  roles: ['Viewer', 'API'],
  policies: [...POLICIES].filter((p) => p.endsWith('_View')) as Principal['policies'],
  isOwner: false,
  via: 'api-key',
});

beforeAll(async () => {
  procs = await Processes.inTempDir('dist-reports', { secret, logLevel: 'warn' });
  await seedDemoStore(procs.dataDir, secret, 'distributed-reports-key-0123456789', async ({ devices }) => {
    const d = (await devices.repo.all(DEMO_ACCOUNT_ID))[0]!;
    device = { id: d.id, name: d.name };
  });
  const [pi, pd, pc, ps, pa] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const identityUrl = await procs.start('services/identity/src/main.ts', {}, pi);
  const devicesUrl = await procs.start('services/devices/src/main.ts', { IDENTITY_URL: identityUrl }, pd);
  const contentUrl = await procs.start('services/content/src/main.ts', { IDENTITY_URL: identityUrl }, pc);
  contentChild = procs.children.at(-1)!;
  const schedulingUrl = await procs.start(
    'services/scheduling/src/main.ts',
    { IDENTITY_URL: identityUrl, DEVICES_URL: devicesUrl, CONTENT_URL: contentUrl },
    ps,
  );
  // A playlist and a schedule made through their subgraphs' GraphQL, as an editor of the account.
  const editor = { ...principal(DEMO_ACCOUNT_ID), roles: ['Owner', 'API'], policies: [...POLICIES], isOwner: true };
  const gql = async (url: string, query: string, variables: Record<string, unknown>) => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await tokens.sign(editor) },
      body: JSON.stringify({ query, variables }),
    });
    return Object.values(((await res.json()) as { data: Record<string, Record<string, { id: string }>> }).data)[0]!;
  };
  playlistId = (await gql(contentUrl, 'mutation($i: CreatePlaylistInput!) { createPlaylist(input: $i) { playlist { id } } }', { i: { name: 'Lobby loop' } }))
    .playlist!.id;
  scheduleId = (
    await gql(schedulingUrl, 'mutation($i: ScheduleInput!) { createSchedule(input: $i) { schedule { id } } }', {
      i: { name: 'Weekday mornings', playlistId },
    })
  ).schedule!.id;
  // Plays written before the analytics process opens the store (chDB: one process per data dir).
  const analytics = await createChdbAnalyticsStore({ path: join(procs.dataDir, 'analytics') });
  await analytics.migrate();
  await analytics.insert('play_logs', [
    {
      id: 'd1',
      account_id: DEMO_ACCOUNT_ID,
      device_id: device.id,
      file_id: 'f',
      file_name: 'clip.mp4',
      timestamp: '2024-05-01T10:00:00.000Z',
      duration: 4.5,
      type: 'video',
      playlist_id: '',
      schedule_id: '',
    },
    // A device deleted since (the devices process does not know it): its plays stay provable.
    {
      id: 'd2',
      account_id: DEMO_ACCOUNT_ID,
      device_id: 'deleted-device',
      file_id: 'f',
      file_name: 'clip.mp4',
      timestamp: '2024-05-01T11:00:00.000Z',
      duration: 2,
      type: 'video',
      playlist_id: '',
      schedule_id: '',
    },
  ]);
  await analytics.insert('play_logs', [
    {
      id: 'd3',
      account_id: DEMO_ACCOUNT_ID,
      device_id: device.id,
      file_id: 'f',
      file_name: 'clip.mp4',
      timestamp: '2024-05-02T10:00:00.000Z',
      duration: 3,
      type: 'video',
      playlist_id: playlistId,
      schedule_id: scheduleId,
    },
  ]);
  // The device pings every minute 10:00-10:14 (15 of the hour's 60 minutes).
  await analytics.insert(
    'ping_logs',
    Array.from({ length: 15 }, (_, i) =>
      pingRow({
        id: `dp${i}`,
        account_id: DEMO_ACCOUNT_ID,
        device_id: device.id,
        timestamp: new Date(Date.UTC(2024, 4, 1, 10, i)).toISOString(),
        cpu_usage: 1,
        memory_usage: 2,
        disk_usage: 3,
      }),
    ),
  );
  await analytics.close();

  analyticsUrl = await procs.start(
    'services/analytics/src/main.ts',
    { DEVICES_URL: devicesUrl, CONTENT_URL: contentUrl, SCHEDULING_URL: schedulingUrl },
    pa,
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await procs?.dispose();
});

const post = async (body: unknown, who: Principal | null) =>
  fetch(`${analyticsUrl}/report/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(who ? { [INTERNAL_TOKEN_HEADER]: await tokens.sign(who) } : {}) },
    body: JSON.stringify(body),
  });

const POP = { report_id: 'proof_of_play', start_date: '2024-05-01', end_date: '2024-05-01' };

test('the analytics process lists and exports reports, device names from the devices process', async () => {
  const list = await fetch(`${analyticsUrl}/report`, { headers: { [INTERNAL_TOKEN_HEADER]: await tokens.sign(principal(DEMO_ACCOUNT_ID)) } });
  expect(list.status).toBe(200);
  const res = await post({ ...POP, device_id: [device.id] }, principal(DEMO_ACCOUNT_ID));
  expect(res.status).toBe(200);
  expect(await res.text()).toContain(`2024-05-01T10:00:00.000Z,${device.id},${device.name},f,clip.mp4,4.5,,,,,d1\r\n`);
});

test("a deleted device the account's plays name is accepted; another account naming it: 404", async () => {
  const res = await post({ ...POP, device_id: ['deleted-device'] }, principal(DEMO_ACCOUNT_ID));
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('2024-05-01T11:00:00.000Z,deleted-device,deleted-device,f,clip.mp4,2,,,,,d2\r\n');
  const foreign = await post({ ...POP, device_id: ['deleted-device'] }, principal('someone-else'));
  expect([foreign.status, ((await foreign.json()) as { error: { field: string } }).error.field]).toEqual([404, 'device_id[0]']);
});

test("device uptime lists the account's devices from the devices process (HTTP listDevices), silent ones at 0 %", async () => {
  const body = { report_id: 'device_uptime', interval_type: 'Hour', start_date: '2024-05-01T10:00:00Z', end_date: '2024-05-01T10:59:59.999Z' };
  const res = await post(body, principal(DEMO_ACCOUNT_ID));
  expect(res.status).toBe(200);
  const rows = (await res.text()).split('\r\n\r\n')[0]!.split('\r\n').slice(1);
  expect(rows).toContain(`2024-05-01T10:00:00.000Z,${device.id},${device.name},25,1,1,2,2,0`);
  // Every seeded demo device is listed (the demo seeds more than one), the others silent.
  expect(rows.length).toBeGreaterThan(1);
  expect(rows.filter((r) => !r.includes(device.id)).every((r) => r.split(',')[3] === '0')).toBe(true);
});

test('proof of play names the playlist and schedule through the content and scheduling processes', async () => {
  const res = await post({ ...POP, end_date: '2024-05-02', device_id: [device.id] }, principal(DEMO_ACCOUNT_ID));
  expect(res.status).toBe(200);
  expect(await res.text()).toContain(
    `2024-05-02T10:00:00.000Z,${device.id},${device.name},f,clip.mp4,3,${playlistId},Lobby loop,${scheduleId},Weekday mornings,d3\r\n`,
  );
});

test('without the internal token: 401; another account naming the device: 404', async () => {
  expect((await post(POP, null)).status).toBe(401);
  const foreign = await post({ ...POP, device_id: [device.id] }, principal('someone-else'));
  expect([foreign.status, ((await foreign.json()) as { error: { field: string } }).error.field]).toEqual([404, 'device_id[0]']);
});

test('a report export as a job in the analytics process: 202, followed to success, the file through its signed link; another account 404', async () => {
  const who = principal(DEMO_ACCOUNT_ID);
  const accepted = await fetch(`${analyticsUrl}/report/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', prefer: 'respond-async', [INTERNAL_TOKEN_HEADER]: await tokens.sign(who) },
    body: JSON.stringify(POP),
  });
  expect(accepted.status).toBe(202);
  const location = accepted.headers.get('location')!;
  let job: { state: string; result: { download_url: string; rows: number } | null } = { state: 'queued', result: null };
  for (const deadline = Date.now() + 60_000; !['succeeded', 'failed', 'cancelled'].includes(job.state);) {
    if (Date.now() > deadline) throw new Error(`job still ${job.state}`);
    await new Promise((r) => setTimeout(r, 100));
    job = (await (await fetch(`${analyticsUrl}${location}`, { headers: { [INTERNAL_TOKEN_HEADER]: await tokens.sign(who) } })).json()) as typeof job;
  }
  expect(job).toMatchObject({ state: 'succeeded', result: { rows: 2 } });
  const file = await fetch(`${analyticsUrl}${job.result!.download_url}`);
  expect(file.status).toBe(200);
  expect(await file.text()).toContain(`2024-05-01T10:00:00.000Z,${device.id},${device.name},f,clip.mp4,4.5,,,,,d1\r\n`);
  const other = await fetch(`${analyticsUrl}${location}`, { headers: { [INTERNAL_TOKEN_HEADER]: await tokens.sign(principal('someone-else')) } });
  expect(other.status).toBe(404);
  expect((await fetch(`${analyticsUrl}${location}`)).status).toBe(401);
}, 90_000);

// Last: it stops the content process.
test('content unreachable: checking a media id is a 503, never a 404', async () => {
  await new Promise<void>((resolve) => {
    contentChild.once('exit', () => resolve());
    contentChild.kill('SIGTERM');
  });
  expect((await post({ ...POP, media_id: ['m'] }, principal(DEMO_ACCOUNT_ID))).status).toBe(503);
});
