/**
 * The cached manifest version and an edit racing a ping (issue 39: 250 web-player screens missed
 * every edit for 30 s). A ping that read a device's schedules just before an edit, and wrote its
 * version to the cache after the edit's invalidation, left the old version cached for up to
 * MAX_CACHE_SECONDS: every later ping answered it, so no screen refetched.
 */
import { POLICIES, type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createSchedulingSubgraph, currentManifest, manifestVersion, playerManifest, type ContentDirectory } from '../../../index.js';
import { tableDirectories } from '../../../../test/fixtures/directories.js';

const device = { accountId: 'acc-a', id: 'd1' };
let store: DocumentStore;
let sg: ReturnType<typeof createSchedulingSubgraph>;
/** While set, the content port says it was reached and waits: the moment between a ping's schedule read and its cache write. */
let gate: { reached: () => void; open: Promise<void> } | null = null;
const run = subgraphRunner(() => sg, testPrincipal('acc-a', POLICIES));

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-manifest-race-');
  const dirs = tableDirectories();
  dirs.devices.set('acc-a', new Map([['d1', { id: 'd1', timezone: null }]]));
  dirs.playlists.set('acc-a', new Set(['morning', 'evening']));
  const content: ContentDirectory = {
    ...dirs.ports.content,
    playerContent: async (caller, refs) => {
      const g = gate;
      gate = null;
      if (g) {
        g.reached();
        await g.open;
      }
      return dirs.ports.content.playerContent(caller, refs);
    },
  };
  sg = createSchedulingSubgraph({ documents: store, tokens: testTokens, ...dirs.ports, content, cache: createMemoryCache() });
});

afterAll(() => store.close());

async function schedule(mutation: string, variables: Record<string, unknown>): Promise<{ id: string; version: number }> {
  const r = await run(mutation, variables);
  expect(r.errors).toBeUndefined();
  const payload = Object.values(r.data as Record<string, { success: boolean; error: string | null; schedule: { id: string; version: number } }>)[0]!;
  expect(payload.error).toBeNull();
  return payload.schedule;
}

test('an edit during a ping computing the manifest is not hidden by the version that ping caches', async () => {
  const s = await schedule(`mutation($input: ScheduleInput!) { createSchedule(input: $input) { success error schedule { id version } } }`, {
    input: { name: 'All day', playlistId: 'morning', deviceIds: ['d1'] },
  });
  const before = await manifestVersion(sg.runtime, device);

  // A ping (a manifest fetch) reads the schedule, then waits for content while the schedule is edited.
  let release!: () => void;
  let reached!: () => void;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  gate = { reached, open: new Promise<void>((resolve) => (release = resolve)) };
  const ping = playerManifest(sg.runtime, device);
  await atGate;
  await schedule(`mutation($id: ID!, $input: ScheduleInput!) { updateSchedule(id: $id, input: $input) { success error schedule { id version } } }`, {
    id: s.id,
    input: { name: 'All day', playlistId: 'evening', deviceIds: ['d1'] },
  });
  release();
  expect((await ping)?.manifest.version).toBe(before); // computed from what it read before the edit

  // The next ping must carry the edit's version, not the one the racing ping cached after the invalidation.
  const carried = await manifestVersion(sg.runtime, device);
  const fresh = (await playerManifest(sg.runtime, device))!.manifest;
  expect(fresh.now.content?.id).toBe('evening');
  expect(fresh.version).not.toBe(before);
  expect(carried).toBe(fresh.version);
});

test('the fetch that follows a ping reuses the answer the ping computed, until an invalidation', async () => {
  const s = await schedule(`mutation($input: ScheduleInput!) { createSchedule(input: $input) { success error schedule { id version } } }`, {
    input: { name: 'Reused', playlistId: 'morning', deviceIds: ['d1'], priority: 'HIGHEST' },
  });
  const computed = (await playerManifest(sg.runtime, device))!;
  let reads = 0;
  gate = { reached: () => void reads++, open: Promise.resolve() };
  const fetched = await currentManifest(sg.runtime, device);
  expect(reads).toBe(0);
  expect(fetched).toEqual(computed);

  await schedule(`mutation($id: ID!, $input: ScheduleInput!) { updateSchedule(id: $id, input: $input) { success error schedule { id version } } }`, {
    id: s.id,
    input: { name: 'Reused', playlistId: 'evening', deviceIds: ['d1'], priority: 'HIGHEST' },
  });
  const after = (await currentManifest(sg.runtime, device))!;
  expect(reads).toBe(1);
  expect(after.manifest.version).not.toBe(computed.manifest.version);
  expect(after.manifest.now.content?.id).toBe('evening');
});
