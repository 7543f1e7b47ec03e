/** Playlists, sources, templates, groups, federation entities and account isolation through the content subgraph's GraphQL. */
import { samplePng, sampleAvi } from '../../../launcher/src/demo/sample-media.js';
import { multipart, principal, startContent, type ContentFixture } from './fixtures/content.js';

let f: ContentFixture;
let imageId: string;
let videoId: string;
let foreignMediaId: string;

const upload = async (account: string, name: string, bytes: Buffer, file: string) => {
  const { body, contentType } = multipart({ name }, { name: file, type: 'application/octet-stream', bytes });
  const res = await fetch(`${f.base}/media`, { method: 'POST', body, headers: { 'content-type': contentType, 'x-test-account': account } });
  if (res.status !== 201) throw new Error(await res.text());
  return ((await res.json()) as { id: string }).id;
};

const ok = async (field: string, query: string, variables: Record<string, unknown> = {}, who = principal('acc-a')) => {
  const r = await f.run(query, variables, who);
  expect(r.errors).toBeUndefined();
  const payload = r.data![field];
  if (!payload.success) throw new Error(`${field}: ${payload.error}`);
  return payload;
};

const PL = 'id name type duration calculatedDuration version sources { id name type sequence interval media { id fileName fileUrl } }';

beforeAll(async () => {
  f = await startContent();
  imageId = await upload('acc-a', 'Poster', await samplePng(400, 300, '#336699'), 'poster.png');
  videoId = await upload('acc-a', 'Clip', await sampleAvi(160, 90, 4), 'clip.avi');
  foreignMediaId = await upload('acc-b', 'Theirs', await samplePng(10, 10, '#000'), 'b.png');
});
afterAll(() => f.close());

async function newPlaylist(name = 'Morning') {
  return (
    await ok('createPlaylist', `mutation($i: CreatePlaylistInput!) { createPlaylist(input: $i) { success error playlist { ${PL} } } }`, {
      i: { name, type: 'SLIDESHOW', duration: 600 },
    })
  ).playlist;
}
const add = (playlistId: string, fileId: string, interval?: number | null, who = principal('acc-a')) =>
  f.run(
    `mutation($i: AddPlaylistSourceInput!) { addPlaylistSource(input: $i) { success error errorCode errorField playlist { ${PL} } } }`,
    { i: { playlistId, fileId, ...(interval !== undefined ? { interval } : {}) } },
    who,
  );

describe('playlists and sources', () => {
  test('create, add sources, calculatedDuration uses media duration where the interval is unset', async () => {
    const p = await newPlaylist();
    expect(p).toMatchObject({ name: 'Morning', type: 'SLIDESHOW', duration: 600, calculatedDuration: 0, sources: [], version: 1 });
    await add(p.id, imageId, 10);
    const r = await add(p.id, videoId, null);
    const pl = r.data!.addPlaylistSource.playlist;
    expect(pl.sources.map((s: any) => [s.name, s.type, s.sequence, s.interval])).toEqual([
      ['Poster', 'IMAGE', 1, 10],
      ['Clip', 'VIDEO', 2, null],
    ]);
    expect(pl.calculatedDuration).toBe(14);
    expect(pl.sources[0].media).toMatchObject({ id: imageId, fileName: 'poster.png' });
    expect(pl.sources[0].media.fileUrl).toMatch(/^\/content\/files\//);
  });

  test('update, remove and reorder keep sequences dense; reorder takes the full set only', async () => {
    const p = await newPlaylist('Dense');
    for (const i of [1, 2, 3, 4]) await add(p.id, imageId, i);
    let cur = (await f.run(`{ playlist(where: { id: { eq: "${p.id}" } }) { ${PL} } }`)).data!.playlist[0];
    const [a, b, c, d] = cur.sources.map((s: any) => s.id);
    const upd = await ok(
      'updatePlaylistSource',
      `mutation($i: UpdatePlaylistSourceInput!) { updatePlaylistSource(input: $i) { success error playlist { ${PL} } } }`,
      { i: { playlistId: p.id, sourceId: b, interval: 20, name: 'Longer' } },
    );
    expect(upd.playlist.sources[1]).toMatchObject({ name: 'Longer', interval: 20 });
    const rem = await ok(
      'removePlaylistSource',
      `mutation { removePlaylistSource(playlistId: "${p.id}", sourceId: "${a}") { success error playlist { ${PL} } } }`,
    );
    expect(rem.playlist.sources.map((s: any) => [s.id, s.sequence])).toEqual([
      [b, 1],
      [c, 2],
      [d, 3],
    ]);
    const REORDER = `mutation($i: ReorderPlaylistSourcesInput!) { reorderPlaylistSources(input: $i) { success error errorField playlist { ${PL} } } }`;
    cur = (await ok('reorderPlaylistSources', REORDER, { i: { playlistId: p.id, sourceIds: [d, b, c] } })).playlist;
    expect(cur.sources.map((s: any) => [s.id, s.sequence])).toEqual([
      [d, 1],
      [b, 2],
      [c, 3],
    ]);
    for (const [ids, field] of [
      [[d, b], 'sourceIds'],
      [[d, b, b], 'sourceIds[2]'],
      [[d, b, c, 'zzz'], 'sourceIds[3]'],
    ] as const) {
      const r = await f.run(REORDER, { i: { playlistId: p.id, sourceIds: ids } });
      expect(r.data!.reorderPlaylistSources).toMatchObject({ success: false, errorField: field });
    }
    const gone = await f.run(`mutation { removePlaylistSource(playlistId: "${p.id}", sourceId: "${a}") { success errorField } }`);
    expect(gone.data!.removePlaylistSource).toMatchObject({ success: false, errorField: 'sourceId' });
  });

  test('concurrent edits of one playlist lose nothing; a stale expectedVersion is refused', async () => {
    const p = await newPlaylist('Busy');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => add(p.id, imageId, i + 1)));
    expect(results.every((r) => r.data!.addPlaylistSource.success)).toBe(true);
    const cur = (await f.run(`{ playlist(where: { id: { eq: "${p.id}" } }) { ${PL} } }`)).data!.playlist[0];
    expect(cur.sources.map((s: any) => s.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(cur.sources.map((s: any) => s.interval).sort((x: number, y: number) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const stale = await f.run(`mutation($i: AddPlaylistSourceInput!) { addPlaylistSource(input: $i) { success errorCode errorField } }`, {
      i: { playlistId: p.id, fileId: imageId, interval: 5, expectedVersion: 1 },
    });
    expect(stale.data!.addPlaylistSource).toMatchObject({ success: false, errorCode: 'VERSION_CONFLICT', errorField: 'expectedVersion' });
    const upd = await f.run(`mutation { updatePlaylist(id: "${p.id}", input: { name: "Renamed", type: MARQUEE, expectedVersion: 1 }) { success errorCode } }`);
    expect(upd.data!.updatePlaylist).toMatchObject({ success: false, errorCode: 'VERSION_CONFLICT' });
    const fresh = await ok(
      'updatePlaylist',
      `mutation { updatePlaylist(id: "${p.id}", input: { name: "Renamed", type: MARQUEE, expectedVersion: ${cur.version} }) { success error playlist { name type sources { id } } } }`,
    );
    expect(fresh.playlist).toMatchObject({ name: 'Renamed', type: 'MARQUEE' });
    expect(fresh.playlist.sources).toHaveLength(8);
  });

  test('bad input names the field: unknown or foreign media, bad interval, unknown playlist', async () => {
    const p = await newPlaylist('Checks');
    expect((await add(p.id, foreignMediaId, 5)).data!.addPlaylistSource).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: 'fileId' });
    expect((await add(p.id, imageId, 0)).data!.addPlaylistSource).toMatchObject({ success: false, errorField: 'interval' });
    expect((await add('nope', imageId, 5)).data!.addPlaylistSource).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    const bad = await f.run('mutation { createPlaylist(input: { name: "  " }) { success errorField } }');
    expect(bad.data!.createPlaylist).toMatchObject({ success: false, errorField: 'name' });
  });

  test('deleting media a playlist plays is refused, naming the playlist; unused media deletes with its file', async () => {
    const r = await f.run(`mutation { deleteMedia(id: "${imageId}") { success error errorCode } }`);
    expect(r.data!.deleteMedia).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE' });
    expect(r.data!.deleteMedia.error).toMatch(/Morning/);
    const spare = await upload('acc-a', 'Spare', await samplePng(20, 20, '#123456'), 'spare.png');
    const before = (await f.blobFiles('acc-a')).length;
    await ok('deleteMedia', `mutation { deleteMedia(id: "${spare}") { success error mediaId } }`);
    expect((await f.blobFiles('acc-a')).length).toBe(before - 2); // file and thumbnail
  });

  test('updateMedia changes metadata only', async () => {
    const g = await ok('createMediaGroup', 'mutation { createMediaGroup(input: { name: "Posters" }) { success error group { id } } }');
    const m = await ok(
      'updateMedia',
      `mutation($i: UpdateMediaInput!) { updateMedia(id: "${imageId}", input: $i) { success error media { name groupName tags fileSize sha512 endDate } } }`,
      { i: { name: 'Poster v2', groupId: g.group.id, tags: ['a'], endDate: '2027-01-01T00:00:00Z' } },
    );
    expect(m.media).toMatchObject({ name: 'Poster v2', groupName: 'Posters', tags: ['a'], endDate: '2027-01-01T00:00:00Z' });
    expect(m.media.sha512).toHaveLength(128);
    const bad = await f.run(
      `mutation { updateMedia(id: "${imageId}", input: { name: "x", startDate: "2027-02-01T00:00:00Z", endDate: "2027-01-01T00:00:00Z" }) { success errorField } }`,
    );
    expect(bad.data!.updateMedia).toMatchObject({ success: false, errorField: 'endDate' });
  });
});

describe('templates', () => {
  const TPL = 'id name width height orientation modules { id name left top width height playlistId playlist { id name calculatedDuration } }';
  test('create with modules that resolve their playlists; validation of bounds and playlist ownership', async () => {
    const p = await newPlaylist('For template');
    const t = await ok('createTemplate', `mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { success error template { ${TPL} } } }`, {
      i: {
        name: 'Split',
        width: 1920,
        height: 1080,
        modules: [
          { name: 'Left', left: 0, top: 0, width: 960, height: 1080, playlistId: p.id },
          { name: 'Right', left: 960, top: 0, width: 960, height: 1080 },
        ],
      },
    });
    expect(t.template).toMatchObject({
      name: 'Split',
      orientation: 0,
      modules: [
        { name: 'Left', playlist: { id: p.id, name: 'For template' } },
        { name: 'Right', playlist: null },
      ],
    });
    const CREATE = 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { success errorCode errorField } }';
    const outside = await f.run(CREATE, { i: { name: 'X', width: 100, height: 100, modules: [{ left: 50, top: 0, width: 60, height: 10 }] } });
    expect(outside.data!.createTemplate).toMatchObject({ success: false, errorField: 'modules[0].width' });
    const foreignPl = (
      await ok('createPlaylist', 'mutation { createPlaylist(input: { name: "B" }) { success error playlist { id } } }', {}, principal('acc-b'))
    ).playlist.id;
    const foreign = await f.run(CREATE, {
      i: { name: 'X', width: 100, height: 100, modules: [{ left: 0, top: 0, width: 10, height: 10, playlistId: foreignPl }] },
    });
    expect(foreign.data!.createTemplate).toMatchObject({ success: false, errorField: 'modules[0].playlistId' });
    const neg = await f.run(CREATE, { i: { name: 'X', width: 100, height: 100, modules: [{ left: -1, top: 0, width: 10, height: 10 }] } });
    expect(neg.data!.createTemplate).toMatchObject({ success: false, errorField: 'modules[0].left' });
    // A playlist a template plays cannot be deleted from under it.
    const del = await f.run(`mutation { deletePlaylist(id: "${p.id}") { success errorCode } }`);
    expect(del.data!.deletePlaylist).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE' });
    const upd = await ok(
      'updateTemplate',
      `mutation($i: UpdateTemplateInput!) { updateTemplate(id: "${t.template.id}", input: $i) { success error template { ${TPL} } } }`,
      {
        i: {
          name: 'Full',
          width: 1920,
          height: 1080,
          orientation: 1,
          modules: [{ id: t.template.modules[0].id, left: 0, top: 0, width: 1920, height: 1080, playlistId: p.id }],
        },
      },
    );
    expect(upd.template).toMatchObject({ name: 'Full', orientation: 1, modules: [{ id: t.template.modules[0].id, width: 1920 }] });
    await ok('deleteTemplate', `mutation { deleteTemplate(id: "${t.template.id}") { success error } }`);
    await ok('deletePlaylist', `mutation { deletePlaylist(id: "${p.id}") { success error } }`);
  });
});

describe('groups', () => {
  test.each([
    ['Media', 'mediaGroups'],
    ['Playlist', 'playlistGroups'],
    ['Template', 'templateGroups'],
  ])('%s groups: create, nest, rename, delete moving members up', async (T, list) => {
    const root = await ok(
      `create${T}Group`,
      `mutation { create${T}Group(input: { name: "Root" }) { success error group { id level } } }`,
      {},
      principal('acc-g'),
    );
    const child = await ok(
      `create${T}Group`,
      `mutation { create${T}Group(input: { name: "Child", parentId: "${root.group.id}" }) { success error group { id level parentId } } }`,
      {},
      principal('acc-g'),
    );
    expect(child.group).toMatchObject({ level: 1, parentId: root.group.id });
    const cycle = await f.run(
      `mutation { update${T}Group(id: "${root.group.id}", input: { name: "Root", parentId: "${child.group.id}" }) { success errorField } }`,
      {},
      principal('acc-g'),
    );
    expect(cycle.data![`update${T}Group`]).toMatchObject({ success: false, errorField: 'parentId' });
    await ok(`update${T}Group`, `mutation { update${T}Group(id: "${child.group.id}", input: { name: "Renamed" }) { success error } }`, {}, principal('acc-g'));
    const tree = await f.run(`{ ${list}(tree: true) { name children { name level } } }`, {}, principal('acc-g'));
    expect(tree.data![list]).toEqual([{ name: 'Root', children: [{ name: 'Renamed', level: 1 }] }]);
    const del = await ok(`delete${T}Group`, `mutation { delete${T}Group(id: "${root.group.id}") { success error movedGroups } }`, {}, principal('acc-g'));
    expect(del.movedGroups).toBe(1);
    // Other accounts see none of it and cannot touch it.
    expect((await f.run(`{ ${list} { id } }`, {}, principal('acc-h'))).data![list]).toEqual([]);
    const foreign = await f.run(`mutation { delete${T}Group(id: "${child.group.id}") { success errorCode } }`, {}, principal('acc-h'));
    expect(foreign.data![`delete${T}Group`]).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  });
});

describe('federation entities and isolation', () => {
  test('_entities resolves Media, Playlist and Template in batches, only the caller’s', async () => {
    const p = await newPlaylist('Entity');
    await add(p.id, imageId, 3);
    const t = await ok(
      'createTemplate',
      `mutation { createTemplate(input: { name: "E", width: 10, height: 10, modules: [{ left: 0, top: 0, width: 10, height: 10, playlistId: "${p.id}" }] }) { success error template { id } } }`,
    );
    const q =
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on Media { id name } ... on Playlist { id name calculatedDuration } ... on Template { id name modules { playlist { name } } } } }';
    const r = await f.run(q, {
      r: [
        { __typename: 'Media', id: imageId },
        { __typename: 'Media', id: videoId },
        { __typename: 'Playlist', id: p.id },
        { __typename: 'Template', id: t.template.id },
        { __typename: 'Media', id: foreignMediaId },
      ],
    });
    expect(r.errors).toBeUndefined();
    expect(r.data!._entities).toEqual([
      { id: imageId, name: expect.any(String) },
      { id: videoId, name: 'Clip' },
      { id: p.id, name: 'Entity', calculatedDuration: 3 },
      { id: t.template.id, name: 'E', modules: [{ playlist: { name: 'Entity' } }] },
      null,
    ]);
  });

  test('another account can neither read nor change acc-a content', async () => {
    const b = principal('acc-b');
    expect((await f.run('{ media { id } }', {}, b)).data!.media.map((m: any) => m.id)).toEqual([foreignMediaId]);
    expect((await f.run(`mutation { updateMedia(id: "${imageId}", input: { name: "mine" }) { success errorCode } }`, {}, b)).data!.updateMedia).toMatchObject({
      success: false,
      errorCode: 'NOT_FOUND',
    });
    expect((await f.run(`mutation { deleteMedia(id: "${videoId}") { success errorCode } }`, {}, b)).data!.deleteMedia).toMatchObject({
      success: false,
      errorCode: 'NOT_FOUND',
    });
    const pa = (await f.run('{ playlist { id } }')).data!.playlist[0].id;
    expect((await add(pa, foreignMediaId, 5, b)).data!.addPlaylistSource).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  });

  test('policies: a viewer cannot change content', async () => {
    const viewer = principal('acc-a', ['Files_View', 'Playlists_View', 'Templates_View']);
    const r = await f.run('mutation { createPlaylist(input: { name: "x" }) { success } }', {}, viewer);
    expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
