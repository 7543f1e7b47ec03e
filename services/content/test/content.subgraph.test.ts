import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POLICIES, type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createLocalBlobStore } from '@pylon/adapters/local';
import { createContentSubgraph } from '../src/app.js';
import { subgraphLister } from '@pylon/kit/testing';
import type { MediaRecord } from '../src/domain/media.js';

const principal = testPrincipal;

let dir: string;
let store: DocumentStore;
let sg: ReturnType<typeof createContentSubgraph>;

const run = subgraphRunner(() => sg, principal('acc-a'));

const list = subgraphLister(run, principal('acc-a'));

const names = async (field: string, query: string, who = principal('acc-a')) => (await list<{ name: string }>(field, query, {}, who)).map((x) => x.name);

const media = (over: Partial<MediaRecord> & { id: string; name: string }): MediaRecord & { id: string } => ({
  fileName: `${over.name.toLowerCase()}.png`,
  mimeType: 'image/png',
  fileSize: 1000,
  fileUrl: `https://cdn.example/${over.id}`,
  thumbnailUrl: null,
  width: 1920,
  height: 1080,
  tags: [],
  groupId: null,
  groupName: null,
  orgId: null,
  ...over,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-content-'));
  store = await createLmdbDocumentStore({ path: dir });
  sg = createContentSubgraph({
    documents: store,
    tokens: testTokens,
    blobs: createLocalBlobStore({ dir: join(dir, 'blobs') }),
    urlSecret: 'test-url-secret-test-url-secret-0123',
  });
  const { repo } = sg;

  const lobby = await repo.media.groups.insert('acc-a', { name: 'Lobby', parentId: null });
  const promos = await repo.media.groups.insert('acc-a', { name: 'Promos', parentId: lobby.id });
  await repo.media.items.insert(
    'acc-a',
    media({ id: 'm1', name: 'Alpha', fileSize: 5_000_000_000, mimeType: 'video/mp4', tags: ['vip'], groupId: lobby.id, groupName: 'Lobby' }),
  );
  await repo.media.items.insert('acc-a', media({ id: 'm2', name: 'Bravo', fileSize: 200, tags: [], groupId: promos.id, groupName: 'Promos', orgId: 'org-1' }));
  await repo.media.items.insert(
    'acc-a',
    media({
      id: 'm3',
      name: 'Charlie',
      fileSize: 3000,
      width: null,
      height: null,
      mimeType: 'audio/mpeg',
      tags: ['vip', 'hall'],
      groupId: promos.id,
      groupName: 'Promos',
    }),
  );
  await repo.media.items.insert('acc-b', media({ id: 'm9', name: 'Other account' }));

  // Two groups whose parents point at each other: neither is reachable from a top-level group.
  const loopA = await repo.playlists.groups.insert('acc-a', { name: 'Loop A', parentId: null });
  const loopB = await repo.playlists.groups.insert('acc-a', { name: 'Loop B', parentId: loopA.id });
  await repo.playlists.groups.update('acc-a', loopA.id, { $set: { parentId: loopB.id } });
  await repo.playlists.groups.insert('acc-a', { name: 'Orphan', parentId: 'deleted-group' });

  await repo.playlists.items.insert('acc-a', {
    id: 'p1',
    name: 'Morning',
    type: 'MULTIMEDIA',
    duration: 600,
    tags: ['am'],
    groupId: loopB.id,
    groupName: 'Loop B',
    sources: [
      { id: 's2', name: 'Second', type: 'VIDEO', sequence: 2, interval: 30, mediaId: 'm1' },
      { id: 's1', name: 'First', type: 'IMAGE', sequence: 1, interval: 10, mediaId: 'm2' },
      { id: 's3', name: 'Ticker', type: 'RSS', sequence: 3, interval: null, mediaId: null },
      { id: 's4', name: 'Gone', type: 'IMAGE', sequence: 4, interval: 5, mediaId: 'deleted-media' },
    ],
  });
  await repo.playlists.items.insert('acc-a', {
    id: 'p2',
    name: 'Evening',
    type: 'SLIDESHOW',
    duration: null,
    tags: [],
    groupId: null,
    groupName: null,
    sources: [],
  });
  await repo.playlists.items.insert('acc-b', {
    id: 'p9',
    name: 'Other playlist',
    type: 'MARQUEE',
    duration: null,
    tags: [],
    groupId: null,
    groupName: null,
    sources: [],
  });

  const layouts = await repo.templates.groups.insert('acc-a', { name: 'Layouts', parentId: null });
  await repo.templates.items.insert('acc-a', {
    id: 't1',
    name: 'Split',
    width: 1920,
    height: 1080,
    orientation: 0,
    tags: [],
    groupId: layouts.id,
    groupName: 'Layouts',
    modules: [
      { id: 'mod1', name: 'Left', type: 'playlist', left: 0, top: 0, width: 960, height: 1080, playlistId: 'p1' },
      { id: 'mod2', name: 'Right', type: 'playlist', left: 960, top: 0, width: 960, height: 1080, playlistId: 'p2' },
    ],
  });
  await repo.templates.items.insert('acc-a', {
    id: 't2',
    name: 'Portrait',
    width: 1080,
    height: 1920,
    orientation: 1,
    tags: [],
    groupId: null,
    groupName: null,
    modules: [],
  });
  await repo.templates.items.insert('acc-b', {
    id: 't9',
    name: 'Other template',
    width: 1,
    height: 1,
    orientation: 0,
    tags: [],
    groupId: null,
    groupName: null,
    modules: [],
  });
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('media', () => {
  test('lists the caller’s media sorted by name with every field', async () => {
    const items = await list<Record<string, unknown>>(
      'media',
      '{ media { id name fileName mimeType fileSize fileUrl thumbnailUrl uploadedOn width height tags groupId groupName orgId } }',
    );
    expect(items.map((m) => m.name)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(items[0]).toMatchObject({
      id: 'm1',
      fileName: 'alpha.png',
      mimeType: 'video/mp4',
      fileSize: 5_000_000_000,
      fileUrl: 'https://cdn.example/m1',
      thumbnailUrl: null,
      width: 1920,
      height: 1080,
      tags: ['vip'],
      groupName: 'Lobby',
      orgId: null,
    });
    expect(items[0]!.uploadedOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  test('arguments filter: id, groupId, groupName, tag, orgId', async () => {
    const [first] = await list<{ groupId: string }>('media', '{ media(id: ["m2"]) { groupId } }');
    expect(await names('media', '{ media(id: ["m1", "m3"]) { name } }')).toEqual(['Alpha', 'Charlie']);
    expect(await names('media', `{ media(groupId: ["${first!.groupId}"]) { name } }`)).toEqual(['Bravo', 'Charlie']);
    expect(await names('media', '{ media(groupName: ["Lobby"]) { name } }')).toEqual(['Alpha']);
    expect(await names('media', '{ media(tag: ["hall"]) { name } }')).toEqual(['Charlie']);
    expect(await names('media', '{ media(orgId: "org-1") { name } }')).toEqual(['Bravo']);
    expect(await names('media', '{ media(tag: ["vip"], groupName: ["Promos"]) { name } }')).toEqual(['Charlie']);
  });

  test('where, order, limit and offset', async () => {
    expect(await names('media', '{ media(where: { fileSize: { gt: 1000 } }) { name } }')).toEqual(['Alpha', 'Charlie']);
    expect(await names('media', '{ media(where: { mimeType: { startsWith: "image/" } }) { name } }')).toEqual(['Bravo']);
    expect(await names('media', '{ media(where: { or: [{ name: { endsWith: "lie" } }, { tags: { some: { eq: "vip" } } }] }) { name } }')).toEqual([
      'Alpha',
      'Charlie',
    ]);
    expect(await names('media', '{ media(where: { tags: { any: false } }) { name } }')).toEqual(['Bravo']);
    expect(await names('media', '{ media(where: { width: { eq: null } }) { name } }')).toEqual(['Charlie']);
    expect(await names('media', '{ media(order: [{ fileSize: DESC }]) { name } }')).toEqual(['Alpha', 'Charlie', 'Bravo']);
    expect(await names('media', '{ media(order: [{ groupName: ASC }, { name: DESC }], limit: 2) { name } }')).toEqual(['Alpha', 'Charlie']);
    expect(await names('media', '{ media(limit: 1, offset: 1) { name } }')).toEqual(['Bravo']);
  });

  test('a limit above the maximum, a negative offset and an unknown operator are refused', async () => {
    const big = await run('{ media(limit: 1001) { name } }');
    expect(big.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
    const negative = await run('{ media(offset: -1) { name } }');
    expect(negative.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'offset' });
    const unknownField = await run('{ media(where: { sha: { eq: "x" } }) { name } }');
    expect(unknownField.data).toBeUndefined();
    expect(unknownField.errors?.[0]?.message).toMatch(/"sha" is not defined/);
  });

  test('media groups: flat with levels and counts, and as a tree', async () => {
    expect(await list('mediaGroups', '{ mediaGroups { name count level children { name } } }')).toEqual([
      { name: 'Lobby', count: 1, level: 0, children: [] },
      { name: 'Promos', count: 2, level: 1, children: [] },
    ]);
    expect(await list('mediaGroups', '{ mediaGroups(tree: true) { name children { name count level } } }')).toEqual([
      { name: 'Lobby', children: [{ name: 'Promos', count: 2, level: 1 }] },
    ]);
  });
});

describe('playlists', () => {
  test('sources come in sequence order with their media; calculatedDuration sums intervals', async () => {
    const [p] = await list<Record<string, unknown>>(
      'playlist',
      '{ playlist(where: { id: { eq: "p1" } }) { id name type duration calculatedDuration tags groupName createdOn sources { id name type sequence interval media { id fileName fileUrl } } } }',
    );
    expect(p).toMatchObject({ id: 'p1', name: 'Morning', type: 'MULTIMEDIA', duration: 600, calculatedDuration: 45, tags: ['am'], groupName: 'Loop B' });
    expect(p!.createdOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(p!.sources).toEqual([
      { id: 's1', name: 'First', type: 'IMAGE', sequence: 1, interval: 10, media: { id: 'm2', fileName: 'bravo.png', fileUrl: 'https://cdn.example/m2' } },
      { id: 's2', name: 'Second', type: 'VIDEO', sequence: 2, interval: 30, media: { id: 'm1', fileName: 'alpha.png', fileUrl: 'https://cdn.example/m1' } },
      { id: 's3', name: 'Ticker', type: 'RSS', sequence: 3, interval: null, media: null },
      { id: 's4', name: 'Gone', type: 'IMAGE', sequence: 4, interval: 5, media: null },
    ]);
  });

  test('where on the type enum, order and limit', async () => {
    expect(await names('playlist', '{ playlist { name } }')).toEqual(['Evening', 'Morning']);
    expect(await names('playlist', '{ playlist(where: { type: { eq: SLIDESHOW } }) { name } }')).toEqual(['Evening']);
    expect(await names('playlist', '{ playlist(where: { type: { in: [MULTIMEDIA, MARQUEE] } }) { name } }')).toEqual(['Morning']);
    expect(await names('playlist', '{ playlist(order: [{ name: DESC }], limit: 1) { name } }')).toEqual(['Morning']);
    const big = await run('{ playlist(limit: 5000) { name } }');
    expect(big.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  test('media, playlist and template groups take where and order (kit group rules)', async () => {
    expect(await list('mediaGroups', '{ mediaGroups(where: { name: { eq: "Promos" } }) { name level count } }')).toEqual([
      expect.objectContaining({ name: 'Promos', level: 1 }),
    ]);
    expect(await list('playlistGroups', '{ playlistGroups(order: [{ name: DESC }]) { name } }')).toEqual([
      { name: 'Orphan' },
      { name: 'Loop B' },
      { name: 'Loop A' },
    ]);
    expect(await list('templateGroups', '{ templateGroups(where: { name: { contains: "Lay" } }) { name } }', {}, principal('acc-b'))).toEqual([]);
    const r = await run('{ mediaGroups(order: [{ count: DESC }]) { name } }');
    expect(r.errors?.[0]?.message).toMatch(/count/);
  });

  test('playlist groups: an orphan is top-level and a parent cycle still shows every group once', async () => {
    const flat = await list<{ name: string; level: number; count: number }>('playlistGroups', '{ playlistGroups { name count level } }');
    expect(flat.map((g) => g.name).sort()).toEqual(['Loop A', 'Loop B', 'Orphan']);
    expect(flat.find((g) => g.name === 'Orphan')).toEqual({ name: 'Orphan', count: 0, level: 0 });
    expect(flat.find((g) => g.name === 'Loop B')?.count).toBe(1);
    const tree = await list<{ name: string; children: { name: string }[] }>(
      'playlistGroups',
      '{ playlistGroups(tree: true) { name children { name children { name } } } }',
    );
    expect(tree).toEqual([
      { name: 'Orphan', children: [] },
      { name: 'Loop A', children: [{ name: 'Loop B', children: [] }] },
    ]);
  });
});

describe('templates', () => {
  test('lists templates with modules; where, order, limit', async () => {
    const [t] = await list<Record<string, unknown>>(
      'template',
      '{ template(where: { orientation: { eq: 0 } }) { id name width height orientation groupName modules { id name type left top width height playlistId } } }',
    );
    expect(t).toEqual({
      id: 't1',
      name: 'Split',
      width: 1920,
      height: 1080,
      orientation: 0,
      groupName: 'Layouts',
      modules: [
        { id: 'mod1', name: 'Left', type: 'playlist', left: 0, top: 0, width: 960, height: 1080, playlistId: 'p1' },
        { id: 'mod2', name: 'Right', type: 'playlist', left: 960, top: 0, width: 960, height: 1080, playlistId: 'p2' },
      ],
    });
    expect(await names('template', '{ template(order: [{ height: DESC }]) { name } }')).toEqual(['Portrait', 'Split']);
    expect(await names('template', '{ template(limit: 1) { name } }')).toEqual(['Portrait']);
    const big = await run('{ template(limit: 1001) { name } }');
    expect(big.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  test('template groups count their templates', async () => {
    expect(await list('templateGroups', '{ templateGroups { name count level parentId } }')).toEqual([{ name: 'Layouts', count: 1, level: 0, parentId: null }]);
  });
});

describe('policies and tenancy', () => {
  test.each([
    ['{ media { name } }', 'Files_View'],
    ['{ mediaGroups { name } }', 'Files_View'],
    ['{ playlist { name } }', 'Playlists_View'],
    ['{ playlistGroups { name } }', 'Playlists_View'],
    ['{ template { name } }', 'Templates_View'],
    ['{ templateGroups { name } }', 'Templates_View'],
  ] as const)('%s requires %s', async (query, policy) => {
    const without = POLICIES.filter((p) => p !== policy);
    const r = await run(query, {}, principal('acc-a', without));
    expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(r.errors?.[0]?.message).toContain(policy);
    const only = await run(query, {}, principal('acc-a', [policy]));
    expect(only.errors).toBeUndefined();
  });

  test('another account sees only its own content and none of the first account’s groups', async () => {
    const b = principal('acc-b');
    expect(await names('media', '{ media { name } }', b)).toEqual(['Other account']);
    expect(await names('media', '{ media(id: ["m1"]) { name } }', b)).toEqual([]);
    expect(await names('playlist', '{ playlist { name } }', b)).toEqual(['Other playlist']);
    expect(await names('template', '{ template { name } }', b)).toEqual(['Other template']);
    expect(await list('mediaGroups', '{ mediaGroups { name } }', {}, b)).toEqual([]);
    expect(await list('playlistGroups', '{ playlistGroups { name } }', {}, b)).toEqual([]);
    expect(await names('media', '{ media { name } }', principal('acc-empty'))).toEqual([]);
  });
});

describe('_entities', () => {
  const q = `query($r: [_Any!]!) { _entities(representations: $r) {
    ... on Media { id name fileUrl }
    ... on Playlist { id name calculatedDuration sources { id media { fileName } } }
    ... on Template { id name modules { id } }
  } }`;

  test('resolves Media, Playlist and Template references in the caller’s account only', async () => {
    const r = await run(q, {
      r: [
        { __typename: 'Media', id: 'm3' },
        { __typename: 'Media', id: 'm9' },
        { __typename: 'Playlist', id: 'p2' },
        { __typename: 'Playlist', id: 'p9' },
        { __typename: 'Template', id: 't2' },
        { __typename: 'Template', id: 'nope' },
        { __typename: 'Media', id: 'm1' },
      ],
    });
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({
      _entities: [
        { id: 'm3', name: 'Charlie', fileUrl: 'https://cdn.example/m3' },
        null,
        { id: 'p2', name: 'Evening', calculatedDuration: 0, sources: [] },
        null,
        { id: 't2', name: 'Portrait', modules: [] },
        null,
        { id: 'm1', name: 'Alpha', fileUrl: 'https://cdn.example/m1' },
      ],
    });
  });

  test('references are loaded in one batch per request; source media reuse that loader', async () => {
    const items = sg.repo.media.items;
    const original = items.find.bind(items);
    const asked: unknown[] = [];
    items.find = (tenant, filter, options) => {
      asked.push((filter as { id?: { $in?: string[] } } | undefined)?.id?.$in);
      return original(tenant, filter, options);
    };
    try {
      const r = await run(q, {
        r: [
          { __typename: 'Media', id: 'm1' },
          { __typename: 'Playlist', id: 'p1' },
          { __typename: 'Media', id: 'm2' },
          { __typename: 'Media', id: 'm3' },
        ],
      });
      expect(r.errors).toBeUndefined();
      // p1's sources play m2, m1 and a deleted file: only the one not loaded yet is fetched.
      expect(asked).toEqual([['m1', 'm2', 'm3'], ['deleted-media']]);
    } finally {
      items.find = original;
    }
  });

  test('a reference needs the type’s view policy', async () => {
    const r = await run(q, { r: [{ __typename: 'Template', id: 't1' }] }, principal('acc-a', ['Files_View', 'Playlists_View']));
    expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('mediaCount, playlistCount, templateCount (REST X-Total-Count)', () => {
  /** The count and the listing's length for the same arguments, as `who`. */
  async function both(root: string, args: string, who = principal('acc-a')) {
    const r = await run(`{ n: ${root}Count${args ? `(${args})` : ''} rows: ${root}(${args ? `${args}, ` : ''}limit: 1000) { id } }`, {}, who);
    expect(r.errors).toBeUndefined();
    const data = r.data as { n: number; rows: unknown[] };
    return { count: data.n, listed: data.rows.length };
  }

  test('count the caller’s account only', async () => {
    expect(await both('media', '')).toEqual({ count: 3, listed: 3 });
    expect(await both('media', '', principal('acc-b'))).toEqual({ count: 1, listed: 1 });
    expect(await both('media', 'id: ["m1", "m9"]')).toEqual({ count: 1, listed: 1 });
    expect(await both('playlist', '')).toEqual({ count: 2, listed: 2 });
    expect(await both('playlist', '', principal('acc-b'))).toEqual({ count: 1, listed: 1 });
    expect(await both('template', '', principal('acc-c'))).toEqual({ count: 0, listed: 0 });
  });

  test('apply the listing’s filters, whatever the page', async () => {
    const cases: [string, string][] = [
      ['media', 'groupName: ["Promos"]'],
      ['media', 'tag: ["vip"]'],
      ['media', 'orgId: "org-1"'],
      ['media', 'where: { fileSize: { gt: 1000 } }'],
      ['playlist', 'where: { name: { eq: "Morning" } }'],
      ['template', 'where: { groupName: { in: ["Layouts"] } }'],
    ];
    for (const [root, args] of cases) {
      const { count, listed } = await both(root, args);
      expect({ root, args, count }).toEqual({ root, args, count: listed });
    }
    expect((await both('media', 'groupName: ["Promos"]')).count).toBe(2);
    const paged = await run('{ mediaCount media(limit: 1, offset: 1) { id } }');
    expect(paged.data).toMatchObject({ mediaCount: 3 });
  });

  test('need the list’s policy', async () => {
    const r = await run('{ playlistCount }', {}, principal('acc-a', []));
    expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
