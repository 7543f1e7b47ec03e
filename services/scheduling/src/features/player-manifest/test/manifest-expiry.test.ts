/**
 * Content expiry in the manifest and in nowPlaying (issue 37.3), through the subgraph with a clock
 * the test sets: sources outside their validity window are left out, the manifest's next change is
 * the first validity edge (its `next` the same schedule re-cut there), and nowPlaying names what it
 * skips and why; deviceTimeline cuts its segments at the validity edges.
 */
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { POLICIES, type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createSchedulingSubgraph, playerManifest, type ContentDirectory, type ManifestPlaylist } from '../../../index.js';
import { tableDirectories } from '../../../../test/fixtures/directories.js';

const T = Date.parse('2026-12-01T12:00:00Z');
const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
const H = 3_600_000;
const device = { accountId: 'acc-a', id: 'd1' };
let clock = T;
let store: DocumentStore;
let sg: ReturnType<typeof createSchedulingSubgraph>;
const run = subgraphRunner(() => sg, testPrincipal('acc-a', POLICIES));

const source = (id: string, validFrom: number | null, validUntil: number | null): ManifestPlaylist['sources'][number] => ({
  id,
  name: id,
  type: 'IMAGE',
  interval: 10,
  media: { id: `m-${id}`, name: id, mimeType: 'image/png', url: `/files/${id}`, size: 1, sha512: null, duration: null },
  validFrom: validFrom === null ? null : iso(validFrom),
  validUntil: validUntil === null ? null : iso(validUntil),
});
const playlist: ManifestPlaylist = {
  kind: 'playlist',
  id: 'lobby',
  name: 'Lobby',
  sources: [source('always', null, null), source('sale', null, T + 2 * H), source('launch', T + H, null)],
};

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-manifest-expiry-');
  const dirs = tableDirectories();
  dirs.devices.set('acc-a', new Map([['d1', { id: 'd1', timezone: 'UTC' }]]));
  dirs.playlists.set('acc-a', new Set(['lobby']));
  const content: ContentDirectory = {
    ...dirs.ports.content,
    playerContent: async (_caller, refs) => ({
      playlists: new Map(refs.playlistIds.includes('lobby') ? [['lobby', playlist]] : []),
      templates: new Map(),
    }),
  };
  sg = createSchedulingSubgraph({ documents: store, tokens: testTokens, ...dirs.ports, content, now: () => clock });
  const r = await run(`mutation($input: ScheduleInput!) { createSchedule(input: $input) { success error } }`, {
    input: { name: 'All day', playlistId: 'lobby', deviceIds: ['d1'] },
  });
  expect(r.data).toEqual({ createSchedule: { success: true, error: null } });
});

afterAll(() => store.close());

const ids = (c: unknown) => ((c as { sources: { id: string }[] } | null)?.sources ?? []).map((s) => s.id);

test('the manifest leaves out what is not valid yet or expired, carries valid_until, and changes at every validity edge', async () => {
  clock = T;
  const m = (await playerManifest(sg.runtime, device))!.manifest;
  expect(ids(m.now.content)).toEqual(['always', 'sale']);
  expect((m.now.content as { sources: { id: string; valid_until?: string }[] }).sources[1]).toMatchObject({ id: 'sale', valid_until: iso(T + 2 * H) });
  // The launch becoming valid is the next change: the same schedule, re-cut there (a screen switches to it offline too).
  expect(m.valid_until).toBe(iso(T + H));
  expect(m.next).toMatchObject({ starts_at: iso(T + H), schedule_name: 'All day' });
  expect(ids(m.next!.content)).toEqual(['always', 'sale', 'launch']);

  clock = T + H;
  const later = (await playerManifest(sg.runtime, device))!.manifest;
  expect(later.valid_until).toBe(iso(T + 2 * H));
  expect(ids(later.next!.content)).toEqual(['always', 'launch']);
  expect(later.version).not.toBe(m.version);

  clock = T + 3 * H;
  expect(ids((await playerManifest(sg.runtime, device))!.manifest.now.content)).toEqual(['always', 'launch']);
});

test('nowPlaying names each skipped source with its verdict, and says when the content runs empty', async () => {
  clock = T;
  const q = `query($at: String) { nowPlaying(deviceId: "d1", at: $at) { reason skippedContent { playlistId sourceId verdict reason validFrom validUntil } } }`;
  const before = (await run(q, { at: iso(T) })).data as { nowPlaying: { reason: string; skippedContent: Record<string, unknown>[] } };
  expect(before.nowPlaying.skippedContent).toEqual([
    {
      playlistId: 'lobby',
      sourceId: 'launch',
      verdict: 'NOT_YET_VALID',
      reason: `left out: valid from ${iso(T + H)}`,
      validFrom: iso(T + H),
      validUntil: null,
    },
  ]);
  expect(before.nowPlaying.reason).toBe("schedule 'All day' wins; 1 of its 3 sources left out (expired or not yet valid)");
  const after = (await run(q, { at: iso(T + 3 * H) })).data as { nowPlaying: { skippedContent: { sourceId: string; verdict: string }[] } };
  expect(after.nowPlaying.skippedContent.map((s) => [s.sourceId, s.verdict])).toEqual([['sale', 'EXPIRED']]);

  const saved = playlist.sources;
  playlist.sources = [source('sale', null, T + 2 * H)];
  try {
    const empty = (await run(q, { at: iso(T + 3 * H) })).data as { nowPlaying: { reason: string } };
    expect(empty.nowPlaying.reason).toBe("schedule 'All day' wins, but all its content is expired or not yet valid: the screen shows nothing");
  } finally {
    playlist.sources = saved;
  }
});

test('deviceTimeline cuts the winner at its sources validity edges, each segment naming what it leaves out', async () => {
  const q = `query($from: String!, $to: String!) { deviceTimeline(deviceId: "d1", from: $from, to: $to) {
    segments { from to schedule { name } skippedContent { sourceId verdict } } } }`;
  const r = (await run(q, { from: iso(T - H), to: iso(T + 4 * H) })).data as {
    deviceTimeline: { segments: { from: string; to: string; schedule: { name: string } | null; skippedContent: { sourceId: string; verdict: string }[] }[] };
  };
  expect(r.deviceTimeline.segments).toEqual([
    { from: iso(T - H), to: iso(T + H), schedule: { name: 'All day' }, skippedContent: [{ sourceId: 'launch', verdict: 'NOT_YET_VALID' }] },
    { from: iso(T + H), to: iso(T + 2 * H), schedule: { name: 'All day' }, skippedContent: [] },
    { from: iso(T + 2 * H), to: iso(T + 4 * H), schedule: { name: 'All day' }, skippedContent: [{ sourceId: 'sale', verdict: 'EXPIRED' }] },
  ]);
});
