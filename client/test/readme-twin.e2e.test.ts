/**
 * The README's main examples ("Try it" and "Your first screen", in shell and in GraphQL), written
 * with @pylon/client and run against one started all-in-one server (ready within 180 s on a loaded
 * 2-core machine): each step as the README has it, with types from rest.yaml and the typed
 * documents, so a README change that the client cannot follow fails here. Legacy REST is left out:
 * the client covers the current APIs only.
 */
import { collect, createPylonClient, documents as d, payload, type PylonClient } from '@pylon/client';
import { startHarness, type Harness } from '../../gateway/test/harness.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let h: Harness;
let pylon: PylonClient;

beforeAll(async () => {
  h = await startHarness();
  pylon = createPylonClient({ baseUrl: h.baseUrl, auth: { apiKey: h.key } });
}, 180_000);
afterAll(() => h?.stop());

test('Try it: GraphQL with the key, a where filter, REST pages followed through Link, errors as values', async () => {
  const first = await pylon.graphql(d.FirstDevicesDocument);
  if (!first.ok) throw new Error(first.error.message);
  expect(first.value.device).toHaveLength(3);
  const names = first.value.device!.map((x) => x.name);
  expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));

  const online = await pylon.graphql(d.OnlineScreensDocument, { nameContains: 'screen' });
  expect(online.ok).toBe(true);

  // First page of two (page is 0-based): a bare array, pages in Link, the total in X-Total-Count.
  const page = await pylon.rest.GET('/devices', { params: { query: { take: 2, page: 0 } } });
  expect(page.data).toHaveLength(2);
  expect(page.response.headers.get('link')).toMatch(/rel="next"/);
  const total = Number(page.response.headers.get('x-total-count'));
  // The paging helper follows rel="next" across pages, and stops at its cap.
  const all = await collect(pylon.paginate<{ id: string }>('/devices?take=2', 5));
  expect(all).toHaveLength(Math.min(5, total));
  expect(new Set(all.map((x) => x.id)).size).toBe(all.length);

  const stranger = createPylonClient({ baseUrl: h.baseUrl, auth: { apiKey: 'pyl_not-a-key-0123456789' } });
  expect(await stranger.graphql(d.FirstDevicesDocument)).toMatchObject({ ok: false, error: { kind: 'graphql', status: 401, code: 'UNAUTHENTICATED' } });
  expect(await stranger.result(stranger.rest.GET('/devices'))).toMatchObject({ ok: false, error: { kind: 'http', status: 401 } });
});

test('Your first screen: a device, an image, a playlist, a schedule, what it plays and why, its manifest', async () => {
  // 1. A device; the answer carries its id and its registration_key.
  const dev = await pylon.result(pylon.rest.POST('/devices', { body: { name: 'Front window', timezone: 'Europe/Amsterdam' } }));
  if (!dev.ok) throw new Error(dev.error.message);
  const { id: device, registration_key: rk } = dev.value as { id: string; registration_key: string };
  // 2. An image (multipart upload).
  const form = new FormData();
  form.set('file', new Blob([PNG], { type: 'image/png' }), 'logo.png');
  form.set('name', 'Logo');
  const media = await pylon.result(pylon.rest.POST('/media', { body: form as never }));
  if (!media.ok) throw new Error(media.error.message);
  // 3. A playlist showing it for 10 seconds at a time.
  const playlist = await pylon.result(pylon.rest.POST('/playlists', { body: { name: 'Window loop', type: 'Slideshow' } }));
  if (!playlist.ok) throw new Error(playlist.error.message);
  const added = await pylon.graphql(d.AddToPlaylistDocument, { input: { playlistId: playlist.value.id, fileId: media.value.id, interval: 10 } });
  expect(added.ok && payload(added.value.addPlaylistSource).ok).toBe(true);
  // 4. A schedule: that playlist on that device, every day, all day.
  const schedule = await pylon.result(
    pylon.rest.POST('/schedules', { body: { name: 'Window all day', playlist_id: playlist.value.id, devices: [{ id: device }] } }),
  );
  if (!schedule.ok) throw new Error(schedule.error.message);
  // 5. What it plays now, and why; and the manifest the screen fetches.
  const now = await pylon.graphql(d.ExplainScreenDocument, { deviceId: device });
  if (!now.ok) throw new Error(now.error.message);
  expect(now.value.nowPlaying).toMatchObject({ schedule: { name: 'Window all day' }, content: { playlist: { name: 'Window loop' } } });
  expect(now.value.nowPlaying!.considered.map((c) => c.verdict)).toEqual(['PLAYING']);
  const manifest = await pylon.fetch(`/player/${rk}/manifest`);
  expect(JSON.stringify(await manifest.json())).toContain(media.value.id);

  // The same in GraphQL (the upload stays HTTP).
  const dev2 = await pylon.graphql(d.CreateScreenDocument, { input: { name: 'Side window', timezone: 'Europe/Amsterdam' } });
  const screen2 = dev2.ok ? payload(dev2.value.createDevice) : dev2;
  if (!screen2.ok) throw new Error(screen2.error.message);
  const pl2 = await pylon.graphql(d.CreatePlaylistForDocument, { input: { name: 'Side loop', type: 'SLIDESHOW' } });
  const playlist2 = pl2.ok ? payload(pl2.value.createPlaylist) : pl2;
  if (!playlist2.ok) throw new Error(playlist2.error.message);
  await pylon.graphql(d.AddToPlaylistDocument, { input: { playlistId: playlist2.value.playlist!.id, fileId: media.value.id, interval: 10 } });
  const s2 = await pylon.graphql(d.ScheduleContentDocument, {
    input: { name: 'Side all day', playlistId: playlist2.value.playlist!.id, deviceIds: [screen2.value.device!.id] },
  });
  expect(s2.ok && payload(s2.value.createSchedule).ok).toBe(true);
  const now2 = await pylon.graphql(d.ExplainScreenDocument, { deviceId: screen2.value.device!.id });
  expect(now2.ok && now2.value.nowPlaying?.schedule?.name).toBe('Side all day');
  // A mutation's expected failure is a value too: { kind: 'payload', code }.
  const bad = await pylon.graphql(d.ScheduleContentDocument, { input: { name: 'Nowhere', playlistId: 'no-such-playlist', deviceIds: [device] } });
  expect(bad.ok ? payload(bad.value.createSchedule) : bad).toMatchObject({ ok: false });
});
