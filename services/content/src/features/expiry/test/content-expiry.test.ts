/**
 * Content expiry announcements from the stored due-time set (features/expiry): content.expired at a
 * source's or file's validUntil, once, across a restart (the store closed and opened again) and
 * with two runtimes sweeping one store; content.running_empty the lead (24 h) before a playlist or
 * a file runs empty because of expiry, once per instant, and not for content extended in time.
 * Writes go through the subgraph's GraphQL; the clock is the test's (no sleeps), the sweeps are called.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createLocalBlobStore } from '@pylon/adapters/local';
import { pushEvent, type DocumentStore, type PushEvent, type PushEvents } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createContentSubgraph, type ContentSubgraph } from '../../../app.js';
import { createContentRuntime } from '../../../runtime.js';
import { startExpirySweep, sweepDue } from '../expiry-due.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2030-01-01T00:00:00Z');
let now = T0;
let dir: string;
let store: DocumentStore;
let sg: ContentSubgraph;
const seen: PushEvent[] = [];
const recorder = (into: PushEvent[]): PushEvents => ({ emit: (account, type, data, at) => void into.push(pushEvent(account, type, data, at) as PushEvent) });
/** The runtime's dependencies over the current store: a process's view of it. */
const deps = (events: PushEvents) => ({
  documents: store,
  blobs: createLocalBlobStore({ dir: join(dir, 'blobs') }),
  urlSecret: 'test-url-secret-0123456789-0123456789',
  pushEvents: events,
  now: () => now,
});
const build = () => createContentSubgraph({ ...deps(recorder(seen)), tokens: testTokens });
const run = subgraphRunner(() => sg, testPrincipal('acc-a'));
const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-expiry-'));
  store = await createLmdbDocumentStore({ path: join(dir, 'documents') });
  sg = build();
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const playlist = async (name: string) =>
  (
    (await run('mutation($n: String!) { createPlaylist(input: { name: $n }) { playlist { id } } }', { n: name })).data!.createPlaylist as {
      playlist: { id: string };
    }
  ).playlist.id;
/** Appends a web page source (no file) with the given validUntil; answers its id. */
async function webPage(playlistId: string, validUntil: number | null): Promise<string> {
  const r = await run('mutation($i: AddPlaylistWebPageInput!) { addPlaylistWebPage(input: $i) { success error playlist { sources { id } } } }', {
    i: { playlistId, url: 'https://example.com/board', validUntil: validUntil === null ? null : iso(validUntil) },
  });
  const added = r.data!.addPlaylistWebPage as { success: boolean; playlist: { sources: { id: string }[] } };
  expect(added).toMatchObject({ success: true });
  return added.playlist.sources.at(-1)!.id;
}
const setUntil = async (playlistId: string, sourceId: string, validUntil: number | null) =>
  expect(
    (
      await run('mutation($i: UpdatePlaylistSourceInput!) { updatePlaylistSource(input: $i) { success } }', {
        i: { playlistId, sourceId, validUntil: validUntil === null ? null : iso(validUntil) },
      })
    ).data!.updatePlaylistSource,
  ).toEqual({ success: true });
const of = (type: string, events = seen) => events.filter((e) => e.type === type);

test('content.expired at the instant, once, after a restart over the same store; a moved window at its new instant only', async () => {
  seen.length = 0;
  const id = await playlist('Sale');
  const kept = await webPage(id, T0 + HOUR);
  const moved = await webPage(id, T0 + HOUR);
  // Beyond setTimeout's range (~24.8 days): stored like any other.
  const far = await webPage(id, T0 + 40 * DAY);
  await setUntil(id, moved, T0 + 2 * HOUR);

  // The process stops (its sweep timer and its store) before the instant; a new one opens the same files.
  await startExpirySweep(sg.runtime, 60_000)();
  await store.close();
  store = await createLmdbDocumentStore({ path: join(dir, 'documents') });
  sg = build();
  now = T0 + HOUR - 1;
  expect(await sweepDue(sg.runtime)).toEqual({ expired: 0, runningEmpty: 0 });
  now = T0 + HOUR;
  expect((await sweepDue(sg.runtime)).expired).toBe(1);
  expect(await sweepDue(sg.runtime)).toMatchObject({ expired: 0 });
  expect(of('content.expired')).toEqual([
    expect.objectContaining({
      account_id: 'acc-a',
      timestamp: new Date(T0 + HOUR).toISOString(),
      data: { playlist_id: id, source_id: kept, media_id: null, valid_until: iso(T0 + HOUR) },
    }),
  ]);
  now = T0 + 40 * DAY + 5_000;
  await sweepDue(sg.runtime);
  expect(of('content.expired').map((e) => (e.data as { source_id: string }).source_id)).toEqual([kept, moved, far]);
  now = T0;
});

test('two runtimes sweeping one store announce each expiry once', async () => {
  seen.length = 0;
  const id = await playlist('Many');
  for (let i = 0; i < 12; i++) await webPage(id, T0 + HOUR);
  const a: PushEvent[] = [];
  const b: PushEvent[] = [];
  const [ra, rb] = [createContentRuntime(deps(recorder(a))), createContentRuntime(deps(recorder(b)))];
  now = T0 + HOUR;
  const reports = await Promise.all([sweepDue(ra), sweepDue(rb), sweepDue(ra), sweepDue(rb)]);
  expect(reports.reduce((n, r) => n + r.expired, 0)).toBe(12);
  const ids = [...of('content.expired', a), ...of('content.expired', b)].map((e) => (e.data as { source_id: string }).source_id);
  expect(new Set(ids).size).toBe(12);
  expect(ids).toHaveLength(12);
  now = T0;
});

test('content.running_empty the lead before a playlist or file runs empty, once per instant; extended content announces nothing', async () => {
  seen.length = 0;
  const running = (events = seen) => of('content.running_empty', events).map((e) => e.data);
  // A file expiring in 20 days, played by a playlist beside a web page expiring in 10: the playlist runs empty in 20 days.
  const file = await sg.repo.media.add('acc-a', {
    name: 'menu.png',
    fileName: 'menu.png',
    mimeType: 'image/png',
    fileSize: 10,
    fileUrl: 'https://example.com/menu.png',
    thumbnailUrl: null,
    width: 10,
    height: 10,
    orgId: null,
    tags: [],
    groupId: null,
    groupName: null,
  });
  const lunch = await playlist('Lunch');
  await webPage(lunch, T0 + 10 * DAY);
  const added = await run('mutation($i: AddPlaylistSourceInput!) { addPlaylistSource(input: $i) { success } }', { i: { playlistId: lunch, fileId: file.id } });
  expect(added.data!.addPlaylistSource).toEqual({ success: true });
  const until = await run('mutation($id: ID!, $at: String!) { updateMedia(id: $id, input: { name: "menu.png", validUntil: $at }) { success } }', {
    id: file.id,
    at: iso(T0 + 20 * DAY),
  });
  expect(until.data!.updateMedia).toEqual({ success: true });
  // Already inside the lead when written: announced on the next sweep.
  const soon = await playlist('Soon');
  await webPage(soon, T0 + HOUR);
  // Open-ended: never runs empty. Extended before its lead: nothing at the old instant.
  const open = await playlist('Open');
  await webPage(open, T0 + HOUR);
  await webPage(open, null);
  const extended = await playlist('Extended');
  const source = await webPage(extended, T0 + 3 * DAY);

  expect((await sweepDue(sg.runtime)).runningEmpty).toBe(1);
  expect(running()).toEqual([{ playlist_id: soon, media_id: null, name: 'Soon', runs_empty_at: iso(T0 + HOUR) }]);
  // Another edit of it at the same instant does not announce it again.
  await webPage(soon, T0 + 30 * 60_000);
  expect((await sweepDue(sg.runtime)).runningEmpty).toBe(0);

  now = T0 + DAY;
  await setUntil(extended, source, T0 + 60 * DAY);
  now = T0 + 2 * DAY + 1;
  expect((await sweepDue(sg.runtime)).runningEmpty).toBe(0);
  now = T0 + 19 * DAY;
  expect((await sweepDue(sg.runtime)).runningEmpty).toBe(2);
  expect(running().slice(1)).toEqual(
    expect.arrayContaining([
      { playlist_id: lunch, media_id: null, name: 'Lunch', runs_empty_at: iso(T0 + 20 * DAY) },
      { playlist_id: null, media_id: file.id, name: 'menu.png', runs_empty_at: iso(T0 + 20 * DAY) },
    ]),
  );
  now = T0 + 61 * DAY;
  await sweepDue(sg.runtime);
  expect(running().map((d) => (d as { name: string }).name)).toEqual(['Soon', expect.any(String), expect.any(String), 'Extended']);
  expect(running().some((d) => (d as { playlist_id: string }).playlist_id === open)).toBe(false);
  now = T0;
});
