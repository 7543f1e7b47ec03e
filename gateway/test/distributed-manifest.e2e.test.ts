/**
 * Distributed mode, player manifests across processes: identity, devices, content and scheduling
 * each run as their own process over HTTP, sharing the embedded store and (under CI, or whenever a
 * Redis answers) Redis for the cache and pub/sub ports.
 *
 * The devices process authenticates the registration key and asks the scheduling process for the
 * manifest (internal token naming the device); scheduling resolves it with content's help over
 * HTTP. A playlist edit in the content process reaches the scheduling process as a change event on
 * Redis pub/sub, so the next ping on the devices process carries a new manifest version; a device
 * deleted in the devices process leaves its schedules in the scheduling process the same way.
 */
import { randomBytes } from 'node:crypto';
import { createAccount } from '@pylon/identity';
import { devicePrincipal, INTERNAL_TOKEN_HEADER, InternalTokens, type Principal } from '@pylon/kit';
import { testPrincipal } from '@pylon/kit/testing';
import { freePort, Processes, REDIS_URL, redisAnswers, seedIdentity } from './processes.js';
import { pingThroughChange } from './support/long-poll.js';

type Json = Record<string, any>;
const secret = randomBytes(32).toString('hex');
const tokens = new InternalTokens(secret);
const redisUrl = REDIS_URL;
const ACCOUNT = `dist-manifest-${randomBytes(4).toString('hex')}`;
const owner = testPrincipal(ACCOUNT);
let procs: Processes;
let redis = false;
const url: Record<'identity' | 'devices' | 'content' | 'scheduling', string> = { identity: '', devices: '', content: '', scheduling: '' };

beforeAll(async () => {
  procs = await Processes.inTempDir('dist-manifest', { secret, logLevel: 'warn' });
  redis = await redisAnswers(redisUrl);
  if (!redis && process.env.CI) throw new Error(`Redis at ${redisUrl} is needed under CI`);

  await seedIdentity(procs.dataDir, secret, ({ repo }) => createAccount(repo, { id: ACCOUNT, name: 'Distributed manifests', timezone: 'Europe/Amsterdam' }));

  const [pi, pd, pc, ps] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const at = (p: number) => `http://127.0.0.1:${p}`;
  const shared = {
    ...(redis ? { CACHE_DRIVER: 'redis', REDIS_URL: redisUrl } : {}),
    IDENTITY_URL: at(pi),
    DEVICES_URL: at(pd),
    CONTENT_URL: at(pc),
    SCHEDULING_URL: at(ps),
  };
  [url.identity, url.devices, url.content, url.scheduling] = await Promise.all([
    procs.start('services/identity/src/main.ts', { ...shared, OAUTH_ISSUER: at(pi) }, pi, 90_000),
    procs.start('services/devices/src/main.ts', shared, pd, 90_000),
    procs.start('services/content/src/main.ts', shared, pc, 90_000),
    procs.start('services/scheduling/src/main.ts', shared, ps, 90_000),
  ]);
}, 150_000);

afterAll(async () => {
  await procs?.dispose();
});

/** A subgraph process called directly, as the gateway would, signed as `who`. */
async function gql(service: keyof typeof url, query: string, variables: Json = {}, who: Principal = owner): Promise<Json> {
  const res = await fetch(`${url[service]}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await tokens.sign(who) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Json; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!;
}
const manifest = (key: string, etag?: string) => fetch(`${url.devices}/player/${key}/manifest`, etag ? { headers: { 'if-none-match': etag } } : {});
const ping = async (key: string) =>
  (await (await fetch(`${url.devices}/player/${key}/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as Json;
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 5000): Promise<T> {
  let v = await read();
  for (const end = Date.now() + ms; !done(v) && Date.now() < end; v = await read()) await new Promise((r) => setTimeout(r, 50));
  return v;
}

let screen: { id: string; registrationKey: string };
let playlistId: string;
let scheduleId: string;

test('the devices process serves the manifest the scheduling process resolves, with content from the content process', async () => {
  const created = await gql('devices', 'mutation { createDevice(input: { name: "Lobby screen" }) { success error device { id registrationKey } } }');
  expect(created.createDevice.success).toBe(true);
  screen = created.createDevice.device;
  playlistId = (await gql('content', 'mutation { createPlaylist(input: { name: "Lobby" }) { playlist { id } } }')).createPlaylist.playlist.id;
  const schedule = await gql('scheduling', 'mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error schedule { id } } }', {
    i: { name: 'Always', playlistId, deviceIds: [screen.id] },
  });
  expect(schedule.createSchedule).toMatchObject({ success: true, error: null });
  scheduleId = schedule.createSchedule.schedule.id;

  const res = await manifest(screen.registrationKey);
  expect(res.status).toBe(200);
  const etag = res.headers.get('etag')!;
  const body = (await res.json()) as Json;
  expect(body).toMatchObject({ device_id: screen.id, now: { schedule_name: 'Always', content: { type: 'playlist', id: playlistId, name: 'Lobby' } } });
  expect((await manifest(screen.registrationKey, etag)).status).toBe(304);
  expect((await ping(screen.registrationKey)).manifest_version).toBe(body.version);
});

test('a playlist edit in the content process changes the version the devices process hands out (Redis pub/sub)', async () => {
  if (!redis) return console.warn(`skipped: no Redis at ${redisUrl}; change events cross processes only through Redis`);
  const before = (await ping(screen.registrationKey)).manifest_version as string;
  const renamed = await gql(
    'content',
    'mutation($id: ID!) { updatePlaylist(id: $id, input: { name: "Lobby (evening)", type: MULTIMEDIA }) { success error } }',
    {
      id: playlistId,
    },
  );
  expect(renamed.updatePlaylist).toMatchObject({ success: true });
  const after = await until(
    () => ping(screen.registrationKey),
    (p) => p.manifest_version !== before,
  );
  expect(after.manifest_version).not.toBe(before);
  const body = (await (await manifest(screen.registrationKey)).json()) as Json;
  expect(body.version).toBe(after.manifest_version);
  expect(body.now.content.name).toBe('Lobby (evening)');
});

test('a ping long-polling on the devices process answers when a content edit changes its manifest', async () => {
  if (!redis) return console.warn(`skipped: no Redis at ${redisUrl}; change events cross processes only through Redis`);
  const before = (await ping(screen.registrationKey)).manifest_version as string;
  const { answer, ms } = await pingThroughChange(url.devices, screen.registrationKey, () =>
    gql('content', 'mutation($id: ID!) { updatePlaylist(id: $id, input: { name: "Lobby (night)", type: MULTIMEDIA }) { success } }', { id: playlistId }),
  );
  expect(ms).toBeLessThan(10_000);
  expect(answer.manifest_version).not.toBe(before);
});

test('a device deleted in the devices process leaves its schedules in the scheduling process', async () => {
  if (!redis) return console.warn(`skipped: no Redis at ${redisUrl}; change events cross processes only through Redis`);
  const other = (await gql('devices', 'mutation { createDevice(input: { name: "Short-lived" }) { device { id } } }')).createDevice.device.id as string;
  const patched = await gql('scheduling', 'mutation($id: ID!, $i: ScheduleInput!) { updateSchedule(id: $id, input: $i) { success error } }', {
    id: scheduleId,
    i: { name: 'Always', playlistId, deviceIds: [screen.id, other] },
  });
  expect(patched.updateSchedule.success).toBe(true);
  expect((await gql('devices', 'mutation($id: ID!) { deleteDevice(id: $id) { success } }', { id: other })).deleteDevice.success).toBe(true);
  const devices = await until(
    async () => (await gql('scheduling', 'query($id: [String!]) { schedule(id: $id) { devices { id } } }', { id: scheduleId })).schedule[0].devices as Json[],
    (d) => d.length === 1,
  );
  expect(devices.map((d) => d.id)).toEqual([screen.id]);
});

test('the scheduling process answers manifests to internal callers for that device only', async () => {
  const at = `${url.scheduling}/internal/manifests/${screen.id}`;
  const device = (id: string, accountId = ACCOUNT) => devicePrincipal(accountId, id);
  expect((await fetch(at)).status).toBe(401);
  // A user's token (what the gateway signs) is not a device's.
  expect((await fetch(at, { headers: { [INTERNAL_TOKEN_HEADER]: await tokens.sign(owner) } })).status).toBe(401);
  expect((await fetch(at, { headers: { [INTERNAL_TOKEN_HEADER]: await tokens.sign(device('someone-else')) } })).status).toBe(401);
  // Another account's token for this device id finds no such device there.
  expect((await fetch(at, { headers: { [INTERNAL_TOKEN_HEADER]: await tokens.sign(device(screen.id, 'another-account')) } })).status).toBe(404);
  const ok = await fetch(`${at}/version`, { headers: { [INTERNAL_TOKEN_HEADER]: await tokens.sign(device(screen.id)) } });
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as Json).version).toBe((await ping(screen.registrationKey)).manifest_version);
});
