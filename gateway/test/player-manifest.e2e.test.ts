/**
 * The player manifest through the all-in-one server over real HTTP: registration-key auth, what
 * plays now and next with signed, fetchable files (size, SHA-512), ETag / If-None-Match, the
 * version carried by pings, and change propagation (a playlist edit changes the version and ETag of
 * the devices scheduled to play it, and of no other device) through the pub/sub port.
 */
import { createHash } from 'node:crypto';
import type { DeviceRepository } from '@pylon/devices';
import type { SchedulingRuntime } from '@pylon/scheduling';
import { seedDemoSchedules } from '../../launcher/src/demo/seed-demo.js';
import { startHarness, type Harness } from './harness.js';
import { pingThroughChange } from './support/long-poll.js';

type Json = Record<string, any>;
let h: Harness;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

async function call(method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'x-service-apikey': h.key };
  if (body !== undefined) headers['content-type'] = type;
  const res = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: Buffer.isBuffer(body) ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const gql = async (query: string, variables: Record<string, unknown> = {}) => {
  const r = await h.gql(query, { variables });
  expect(r.body.errors).toBeUndefined();
  return r.body.data as Json;
};
const manifest = (key: string, etag?: string) => fetch(`${h.baseUrl}/player/${key}/manifest`, etag ? { headers: { 'if-none-match': etag } } : {});
const ping = async (key: string) =>
  (await (
    await fetch(`${h.baseUrl}/player/${key}/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"cpu_usage":1}' })
  ).json()) as Json;

let playlistId: string;
let mediaId: string;
let screen: Json;
let bystander: Json;
let demo: Json[];

/** The demo schedules (seeded in the background after start, on the fleet existing then). */
async function demoSchedules(): Promise<Json[]> {
  let demo: Json[] = [];
  for (let i = 0; i < 300 && demo.length < 2; i++) {
    demo = ((await call('GET', '/schedules')).body as Json[]).filter((s) => String(s.tags).includes('demo'));
    if (demo.length < 2) await new Promise((r) => setTimeout(r, 100));
  }
  return demo;
}

beforeAll(async () => {
  h = await startHarness();
  // The test account is the demo account: let the demo schedules settle before adding screens.
  demo = await demoSchedules();
  const group = (await call('POST', '/media/groups', { name: 'Manifest media' })).body;
  const uploaded = await call('POST', `/media/${group.id}/pixel.png?name=Pixel`, PNG, 'application/octet-stream');
  expect(uploaded.status).toBe(201);
  mediaId = uploaded.body.id;
  playlistId = (await gql('mutation { createPlaylist(input: { name: "Lobby" }) { playlist { id } } }')).createPlaylist.playlist.id;
  await gql('mutation($p: ID!, $f: ID!) { addPlaylistSource(input: { playlistId: $p, fileId: $f, interval: 10 }) { success } }', { p: playlistId, f: mediaId });
  const other = (await gql('mutation { createPlaylist(input: { name: "Elsewhere" }) { playlist { id } } }')).createPlaylist.playlist.id;
  screen = (await call('POST', '/devices', { name: 'Manifest screen', timezone: 'Europe/Amsterdam' })).body;
  bystander = (await call('POST', '/devices', { name: 'Bystander' })).body;
  expect((await call('POST', '/schedules', { name: 'Always', type: 'Playlist', playlist_id: playlistId, devices: [{ id: screen.id }] })).status).toBe(201);
  expect((await call('POST', '/schedules', { name: 'Other', type: 'Playlist', playlist_id: other, devices: [{ id: bystander.id }] })).status).toBe(201);
}, 90_000);
afterAll(() => h.stop());

test('GET /player/{key}/manifest: the playlist playing now, its files fetchable with size and SHA-512, an ETag and 304', async () => {
  const res = await manifest(screen.registration_key);
  expect(res.status).toBe(200);
  const etag = res.headers.get('etag');
  expect(etag).toMatch(/^"[\w-]+"$/);
  const body = (await res.json()) as Json;
  expect(body).toMatchObject({
    device_id: screen.id,
    version: expect.any(String),
    valid_until: null,
    next: null,
    now: { schedule_name: 'Always', starts_at: null, content: { type: 'playlist', id: playlistId, name: 'Lobby' } },
  });
  const [source] = body.now.content.sources;
  expect(source).toMatchObject({
    interval: 10,
    media: { id: mediaId, mime_type: 'image/png', size: PNG.length, sha512: createHash('sha512').update(PNG).digest('hex') },
  });
  // Absolute, against this server (no MEDIA_PUBLIC_BASE_URL here), whatever Host the player sent.
  expect(source.media.url.startsWith(`${h.baseUrl}/content/files/`)).toBe(true);
  const spoofed = (await (await fetch(`${h.baseUrl}/player/${screen.registration_key}/manifest`, { headers: { host: 'evil.example' } })).json()) as Json;
  expect(spoofed.now.content.sources[0].media.url.startsWith(`${h.baseUrl}/`)).toBe(true);
  const file = await fetch(source.media.url);
  expect(file.status).toBe(200);
  expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);

  const again = await manifest(screen.registration_key, etag!);
  expect(again.status).toBe(304);
  expect((await ping(screen.registration_key)).manifest_version).toBe(body.version);
});

test('unknown keys are the player API 401; a device without schedules gets an empty manifest', async () => {
  expect((await manifest('not-a-real-key-at-all-000000')).status).toBe(401);
  const idle = (await call('POST', '/devices', { name: 'Idle' })).body;
  const body = (await (await manifest(idle.registration_key)).json()) as Json;
  expect(body).toMatchObject({ device_id: idle.id, now: { schedule_id: null, content: null }, next: null });
});

test('a playlist edit changes the version and ETag of the devices playing it, not of others (event-driven)', async () => {
  const before = { screen: await ping(screen.registration_key), bystander: await ping(bystander.registration_key) };
  const etag = (await manifest(screen.registration_key)).headers.get('etag')!;
  expect(
    (await call('PATCH', `/playlists/${playlistId}`, [{ op: 'replace', path: '/name', value: 'Lobby (day)' }], 'application/json-patch+json')).status,
  ).toBe(200);
  // Announced through the pub/sub port, handled asynchronously: give it a moment.
  let after: Json = before.screen;
  for (let i = 0; i < 50 && after.manifest_version === before.screen.manifest_version; i++) {
    await new Promise((r) => setTimeout(r, 20));
    after = await ping(screen.registration_key);
  }
  expect(after.manifest_version).not.toBe(before.screen.manifest_version);
  expect((await ping(bystander.registration_key)).manifest_version).toBe(before.bystander.manifest_version);
  const res = await manifest(screen.registration_key, etag);
  expect(res.status).toBe(200);
  expect(res.headers.get('etag')).not.toBe(etag);
  expect(((await res.json()) as Json).now.content.name).toBe('Lobby (day)');
});

test('a schedule edit changes the version at once; next and valid_until follow the engine', async () => {
  const before = (await ping(screen.registration_key)).manifest_version;
  const list = (await call('GET', `/schedules?device_id=${screen.id}`)).body as Json[];
  const start = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  expect((await call('PATCH', `/schedules/${list[0]!.id}`, [{ op: 'replace', path: '/start_date', value: start }], 'application/json-patch+json')).status).toBe(
    200,
  );
  const v = (await ping(screen.registration_key)).manifest_version;
  expect(v).not.toBe(before);
  const body = (await (await manifest(screen.registration_key)).json()) as Json;
  expect(body.version).toBe(v);
  expect(body.now).toMatchObject({ schedule_id: null, content: null });
  expect(body.next).toMatchObject({ schedule_name: 'Always', starts_at: expect.stringMatching(new RegExp(`^${start}|^\\d{4}`)), content: { id: playlistId } });
  expect(body.valid_until).toBe(body.next.starts_at);
});

test('the demo: its screens are scheduled, so nowPlaying and the manifest answer the demo content', async () => {
  const demo = await demoSchedules();
  expect(demo.map((s) => s.name).sort()).toEqual(['Lobby loop, all day', 'Main and side, business hours']);
  const lobby = demo.find((s) => s.name === 'Lobby loop, all day')!;
  const deviceId = lobby.devices[0].id as string;
  const playing = await gql('query($d: ID!) { nowPlaying(deviceId: $d) { schedule { name } content { type } } }', { d: deviceId });
  expect(playing.nowPlaying.schedule.name).toMatch(/Lobby loop|Main and side/);
  const device = (await call('GET', `/devices/${deviceId}`)).body;
  const body = (await (await manifest(device.registration_key)).json()) as Json;
  expect(body.now.schedule_name).toBe(playing.nowPlaying.schedule.name);
  expect(body.now.content).not.toBeNull();
});

test('a deleted device leaves the schedules that named it (announced by devices, applied by scheduling)', async () => {
  const gone = (await call('POST', '/devices', { name: 'Short-lived' })).body;
  const created = await call('POST', '/schedules', {
    name: 'Two screens',
    type: 'Playlist',
    playlist_id: playlistId,
    devices: [{ id: gone.id }, { id: bystander.id }],
  });
  expect(created.status).toBe(201);
  expect((await call('DELETE', `/devices/${gone.id}`)).status).toBeLessThan(300);
  let devices: Json[] = [];
  for (let i = 0; i < 50; i++) {
    devices = (await call('GET', `/schedules/${created.body.id}`)).body.devices as Json[];
    if (devices.length === 1) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(devices.map((d) => d.id)).toEqual([bystander.id]);
  expect((await manifest(gone.registration_key)).status).toBe(401);
});

test('a long-polling ping answers as soon as its manifest changes, with the new version', async () => {
  const before = (await ping(screen.registration_key)).manifest_version as string;
  const { answer, ms } = await pingThroughChange(h.baseUrl, screen.registration_key, async () =>
    expect(
      (await call('PATCH', `/playlists/${playlistId}`, [{ op: 'replace', path: '/name', value: 'Lobby (night)' }], 'application/json-patch+json')).status,
    ).toBe(200),
  );
  expect(ms).toBeLessThan(10_000);
  expect(answer.commands).toEqual([]);
  expect(answer.manifest_version).not.toBe(before);
});

test('a change made while the screen was between pings: a ping naming the older manifest it holds answers at once', async () => {
  const held = (await ping(screen.registration_key)).manifest_version as string;
  // The edit lands while no ping of this screen waits: nobody is woken by its announcement.
  expect(
    (await call('PATCH', `/playlists/${playlistId}`, [{ op: 'replace', path: '/name', value: `Lobby ${Date.now()}` }], 'application/json-patch+json')).status,
  ).toBe(200);
  // The next long-poll says which manifest the screen holds (as the web player does): answered at once with the new one.
  const started = Date.now();
  const answer = (await (
    await fetch(`${h.baseUrl}/player/${screen.registration_key}/ping?wait=20`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ meta: { manifest_version: held } }),
    })
  ).json()) as Json;
  // Without the check the ping waits out its 20 s (no wake-up comes); 10 s leaves a busy machine room.
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(answer.manifest_version).not.toBe(held);
  // Holding the current one, it waits as before (a short wait keeps the test quick).
  const waitStarted = Date.now();
  await fetch(`${h.baseUrl}/player/${screen.registration_key}/ping?wait=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ meta: { manifest_version: answer.manifest_version } }),
  });
  expect(Date.now() - waitStarted).toBeGreaterThanOrEqual(900);
});

test('manifest=inline: an answer announcing another manifest than the held one carries it (the GET body and ETag); one announcing nothing new does not', async () => {
  const pingInline = async (held: string | null) =>
    (await (
      await fetch(`${h.baseUrl}/player/${screen.registration_key}/ping?manifest=inline`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ meta: { manifest_version: held } }),
      })
    ).json()) as Json;
  const got = await fetch(`${h.baseUrl}/player/${screen.registration_key}/manifest`);
  const current = (await got.json()) as Json;
  // Holding an older (here: unknown) version: the current manifest comes with the answer, as the GET gives it.
  const stale = await pingInline('an-older-version');
  expect(stale.manifest_version).toBe(current.version);
  expect(stale.manifest).toEqual(current);
  expect(stale.manifest_etag).toBe(got.headers.get('etag'));
  // Holding the current one: no manifest in the answer; without the parameter, never.
  const same = await pingInline(current.version);
  expect(same.manifest_version).toBe(current.version);
  expect(same).not.toHaveProperty('manifest');
  expect(await ping(screen.registration_key)).not.toHaveProperty('manifest');
});

test('a media edit reaches every screen playing the file: through its playlist, and through a template module playing that playlist', async () => {
  const templateId = (
    await gql(
      'mutation($p: String) { createTemplate(input: { name: "Wall", width: 1920, height: 1080, modules: [{ left: 0, top: 0, width: 1920, height: 1080, playlistId: $p }] }) { template { id } } }',
      { p: playlistId },
    )
  ).createTemplate.template.id as string;
  const wall = (await call('POST', '/devices', { name: 'Template screen' })).body;
  expect((await call('POST', '/schedules', { name: 'Wall', type: 'Template', template_id: templateId, devices: [{ id: wall.id }] })).status).toBe(201);
  const before = { screen: (await ping(screen.registration_key)).manifest_version, wall: (await ping(wall.registration_key)).manifest_version };
  expect((await call('PATCH', `/media/${mediaId}`, [{ op: 'replace', path: '/name', value: 'Pixel (renamed)' }], 'application/json-patch+json')).status).toBe(
    200,
  );
  for (const [key, was] of [
    [screen.registration_key, before.screen],
    [wall.registration_key, before.wall],
  ] as const) {
    let now = was;
    for (let i = 0; i < 50 && now === was; i++) {
      await new Promise((r) => setTimeout(r, 20));
      now = (await ping(key)).manifest_version;
    }
    expect(now).not.toBe(was);
  }
  const body = (await (await manifest(wall.registration_key)).json()) as Json;
  expect(body.now.content).toMatchObject({ type: 'template', id: templateId });
  expect(body.now.content.modules[0].playlist.sources[0].media.name).toBe('Pixel (renamed)');
});

test('the demo schedules, seeded in the background after start, name the demo screens only, not one a user registered meanwhile', async () => {
  // As if the seeding ran after this screen was registered (the first seconds of a fresh `npm start`).
  const early = (await call('POST', '/devices', { name: 'Paired in the first seconds' })).body;
  const lobby = demo.find((s) => s.type === 'Playlist')!;
  const wall = demo.find((s) => s.type === 'Template')!;
  await seedDemoSchedules(
    (h.subgraphs.scheduling as unknown as { runtime: SchedulingRuntime }).runtime,
    (h.subgraphs.devices as unknown as { repo: DeviceRepository }).repo,
    { lobbyPlaylistId: lobby.playlist_id, templateId: wall.template_id },
  );
  const named = ((await call('GET', '/schedules')).body as Json[])
    .filter((s) => String(s.tags).includes('demo'))
    .flatMap((s) => (s.devices as Json[]).map((d) => d.id as string));
  expect(named.length).toBeGreaterThan(0);
  expect(named).not.toContain(early.id);
  expect(named).not.toContain(screen.id);
  expect(((await (await manifest(early.registration_key)).json()) as Json).now.schedule_id).toBeNull();
});
