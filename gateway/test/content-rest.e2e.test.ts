/**
 * Content through the all-in-one server over real HTTP: REST media (multipart and raw uploads,
 * import from a URL, list/get/put/patch/delete), playlists, templates and the three group areas,
 * every response checked against the reference OpenAPI by the harness; another account's ids
 * answer 404 / empty lists and change nothing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, type Harness } from './harness.js';
import { otherAccountKey } from './other-account.js';

type Json = Record<string, any>;
let h: Harness;
let otherKey: string;
let fileServer: http.Server;
let fileBase: string;
// A valid 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  // The import source listens on 127.0.0.2, allow-listed for this server (loopback is refused otherwise).
  fileServer = http.createServer((req, res) => {
    if (req.url === '/pixel.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.2', () => r()));
  fileBase = `http://127.0.0.2:${(fileServer.address() as AddressInfo).port}`;
  h = await startHarness({ MEDIA_IMPORT_ALLOW_LIST: '127.0.0.2' });
  otherKey = await otherAccountKey(h, 'content-e2e-other', 'o@content-other.example');
}, 60_000);
afterAll(async () => {
  await h.stop();
  await new Promise((r) => fileServer.close(r));
});

async function call(method: string, path: string, body?: unknown, opts: { key?: string; type?: string } = {}): Promise<{ status: number; body: Json | any }> {
  const headers: Record<string, string> = { 'x-service-apikey': opts.key ?? h.key };
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const raw = Buffer.isBuffer(body) ? body : typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
  const res = await fetch(`${h.baseUrl}${path}`, { method, headers, ...(raw !== undefined ? { body: raw } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}
const other = (method: string, path: string, body?: unknown, type?: string) => call(method, path, body, { key: otherKey, ...(type ? { type } : {}) });
const jsonPatch = (ops: unknown[]) => JSON.stringify(ops);

/** Another account's reads and writes of one of A's records and of its group answer as for unknown ids (templates take no PUT or PATCH). */
async function unknownToOther(area: 'media' | 'playlists' | 'templates', id: string, groupId: string): Promise<void> {
  expect((await other('GET', `/${area}/${id}`)).status).toBe(404);
  expect((await other('GET', `/${area}?id=${id}`)).body).toEqual([]);
  expect((await other('GET', `/${area}?group_id=${groupId}`)).body).toEqual([]);
  if (area !== 'templates') {
    expect((await other('PUT', `/${area}/${id}`, { name: 'B' })).status).toBe(404);
    const rename = jsonPatch([{ op: 'replace', path: '/name', value: 'B' }]);
    expect((await other('PATCH', `/${area}/${id}`, rename, 'application/json-patch+json')).status).toBe(404);
  }
  expect((await other('DELETE', `/${area}/${id}`)).status).toBe(404);
  expect((await other('GET', `/${area}/groups?id=${groupId}`)).body).toEqual([]);
  expect((await other('PUT', `/${area}/groups/${groupId}`, { name: 'B' })).status).toBe(404);
  expect((await other('DELETE', `/${area}/groups/${groupId}`)).status).toBe(404);
}

function multipart(fields: Record<string, string>, file: { name: string; type: string; bytes: Buffer }): { body: Buffer; type: string } {
  const boundary = `----pylon${Date.now()}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

describe('REST media', () => {
  let group: Json;
  let uploaded: Json;
  let raw: Json;
  test('media groups: POST 201, GET (flat and tree), PUT 204', async () => {
    const made = await call('POST', '/media/groups', { name: 'Brand' });
    expect(made.status).toBe(201);
    group = made.body;
    expect(group).toMatchObject({ name: 'Brand', count: 0, level: 0, parent_id: null, family: null, organization_count: null });
    const child = await call('POST', '/media/groups', { name: 'Logos', parent_id: group.id });
    expect(child.status).toBe(201);
    const tree = await call('GET', '/media/groups?tree=true');
    expect(tree.status).toBe(200);
    expect(tree.body.find((g: Json) => g.id === group.id).children.map((c: Json) => c.name)).toEqual(['Logos']);
    expect((await call('PUT', `/media/groups/${child.body.id}`, { name: 'Marks' })).status).toBe(204);
    expect((await call('GET', `/media/groups?id=${child.body.id}`)).body).toMatchObject([{ name: 'Marks', level: 1 }]);
    const noName = await call('POST', '/media/groups', { name: null });
    expect(noName.status).toBe(400);
    expect(noName.body.error.field).toBe('name');
    expect((await call('DELETE', `/media/groups/${child.body.id}`)).status).toBe(204);
  });

  test('POST /media (multipart as the reference: file, name, group_id, tags, start_date, end_date) answers 201 with the Media body', async () => {
    const form = multipart(
      { name: 'Pixel', group_id: group.id, tags: 'brand, small', start_date: '2030-01-01T00:00:00Z', end_date: '2030-12-31T00:00:00Z', is_shared: 'false' },
      { name: 'pixel.png', type: 'image/png', bytes: PNG },
    );
    const r = await call('POST', '/media', form.body, { type: form.type });
    expect(r.status).toBe(201);
    uploaded = r.body;
    expect(uploaded).toMatchObject({
      name: 'Pixel',
      group_id: group.id,
      group_name: 'Brand',
      tags: 'brand,small',
      mime_type: 'image/png',
      file_size: PNG.length,
      width: 1,
      height: 1,
      start_date: '2030-01-01T00:00:00Z',
      end_date: '2030-12-31T00:00:00Z',
      is_shared: false,
    });
    expect(uploaded.sha_512).toMatch(/^[0-9a-f]{128}$/);
    const file = await fetch(new URL(uploaded.file_url, h.baseUrl));
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
  });

  test('POST /media/{group_id}/{file_name} takes the raw body; POST /media/import downloads a URL', async () => {
    const r = await call('POST', `/media/${group.id}/second.png?name=Second&description=a,b`, PNG, { type: 'application/octet-stream' });
    expect(r.status).toBe(201);
    raw = r.body;
    expect(raw).toMatchObject({ name: 'Second', file_name: 'second.png', group_id: group.id, tags: 'a,b' });
    const imported = await call('POST', `/media/import?url=${encodeURIComponent(`${fileBase}/pixel.png`)}&group_id=${group.id}`);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ file_name: 'pixel.png', group_id: group.id, mime_type: 'image/png' });
    const refused = await call('POST', `/media/import?url=${encodeURIComponent('http://169.254.169.254/latest/meta-data')}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('url');
    expect((await call('POST', '/media/import')).status).toBe(400);
    expect((await call('DELETE', `/media/${imported.body.id}`)).status).toBe(204);
  });

  test('GET /media pages and filters; GET /media/{id}', async () => {
    const all = await call('GET', `/media?group_id=${group.id}`);
    expect(all.status).toBe(200);
    expect(all.body.map((m: Json) => m.name)).toEqual(['Pixel', 'Second']);
    expect((await call('GET', `/media?group_id=${group.id}&take=1&page=1`)).body.map((m: Json) => m.name)).toEqual(['Second']);
    expect((await call('GET', `/media?group_name=Brand&id=${raw.id}`)).body.map((m: Json) => m.id)).toEqual([raw.id]);
    const one = await call('GET', `/media/${uploaded.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: uploaded.id, name: 'Pixel', tags: 'brand,small' });
    expect((await call('GET', '/media/no-such-media')).status).toBe(404);
  });

  test('PUT replaces the metadata (204); PATCH changes some (200); bad input is 400 naming the field', async () => {
    expect((await call('PUT', `/media/${uploaded.id}`, { name: 'Renamed', tags: 'x,y', advertiser_id: null, is_shared: null })).status).toBe(204);
    expect((await call('GET', `/media/${uploaded.id}`)).body).toMatchObject({ name: 'Renamed', tags: 'x,y', group_id: null, start_date: null });
    const patched = await call(
      'PATCH',
      `/media/${uploaded.id}`,
      jsonPatch([
        { op: 'replace', path: '/name', value: 'Patched' },
        { op: 'replace', path: '/tags', value: 'p' },
        { op: 'replace', path: '/group_id', value: group.id },
      ]),
      { type: 'application/json-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Patched', tags: 'p', group_id: group.id });
    const readOnly = await call('PATCH', `/media/${uploaded.id}`, jsonPatch([{ op: 'replace', path: '/file_size', value: 1 }]), {
      type: 'application/json-patch+json',
    });
    expect(readOnly.status).toBe(400);
    const noName = await call('PUT', `/media/${uploaded.id}`, { name: null });
    expect(noName.status).toBe(400);
    expect(noName.body.error.field).toBe('name');
    const badDate = await call('PUT', `/media/${uploaded.id}`, { name: 'x', start_date: 'yesterday' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.error.field).toBe('start_date');
  });

  test("another account's media and groups look unknown and stay unchanged", async () => {
    await unknownToOther('media', uploaded.id, group.id);
    const intoForeignGroup = await other('POST', `/media/${group.id}/b.png`, PNG, 'application/octet-stream');
    expect([400, 404]).toContain(intoForeignGroup.status);
    const importIntoForeign = await other('POST', `/media/import?url=${encodeURIComponent(`${fileBase}/pixel.png`)}&group_id=${group.id}`);
    expect([400, 404]).toContain(importIntoForeign.status);
    expect((await call('GET', `/media/${uploaded.id}`)).body.name).toBe('Patched');
  });

  describe('REST playlists', () => {
    let playlist: Json;
    let pgroup: Json;
    test('playlist groups and POST /playlists (201, the reference Playlist with its enum values)', async () => {
      pgroup = (await call('POST', '/playlists/groups', { name: 'Lobby' })).body;
      expect(pgroup).toMatchObject({ name: 'Lobby', count: 0 });
      const r = await call('POST', '/playlists', {
        name: 'Morning',
        type: 'Slideshow',
        duration: 600,
        group_id: pgroup.id,
        tags: 'am,lobby',
        is_random_start: false,
        sources: [],
      });
      expect(r.status).toBe(201);
      playlist = r.body;
      expect(playlist).toMatchObject({
        name: 'Morning',
        type: 'Slideshow',
        duration: 600,
        group_id: pgroup.id,
        group_name: 'Lobby',
        tags: 'am,lobby',
        sources: [],
      });
      const defaulted = await call('POST', '/playlists', { name: 'Plain' });
      expect(defaulted.body.type).toBe('Multimedia');
      const bad = await call('POST', '/playlists', { name: 'x', type: 'Carousel' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.field).toMatch(/type/);
      expect((await call('GET', `/playlists/groups?id=${pgroup.id}`)).body).toMatchObject([{ count: 1 }]);
      expect((await call('PUT', `/playlists/groups/${pgroup.id}`, { name: 'Lobby screens' })).status).toBe(204);
    });

    test('sources come back in the reference Source shape (type Image, media with file_url)', async () => {
      const added = await h.gql('mutation($p: ID!, $f: ID!) { addPlaylistSource(input: { playlistId: $p, fileId: $f, interval: 8 }) { success error } }', {
        variables: { p: playlist.id, f: uploaded.id },
      });
      expect(added.body.data!.addPlaylistSource).toMatchObject({ success: true });
      const r = await call('GET', `/playlists/${playlist.id}`);
      expect(r.status).toBe(200);
      expect(r.body.sources).toMatchObject([
        { type: 'Image', sequence: 1, interval: 8, media_id: uploaded.id, media: { id: uploaded.id }, loop_policy_type: 'Default', conditions: [] },
      ]);
      expect(r.body.sources[0].media.file_url).toMatch(/^\/content\/files\//);
      const list = await call('GET', `/playlists?group_name=Lobby%20screens`);
      expect(list.body.map((p: Json) => p.id)).toEqual([playlist.id]);
      expect((await call('GET', `/playlists?id=${playlist.id}&take=1&page=0`)).body).toHaveLength(1);
      expect((await call('GET', '/playlists/unknown-playlist')).status).toBe(404);
    });

    test('PUT (204, a GET body can be sent back), PATCH (200), DELETE (204)', async () => {
      const read = (await call('GET', `/playlists/${playlist.id}`)).body;
      expect((await call('PUT', `/playlists/${playlist.id}`, { ...read, name: 'Evening', type: 'Marquee' })).status).toBe(204);
      const after = (await call('GET', `/playlists/${playlist.id}`)).body;
      expect(after).toMatchObject({ name: 'Evening', type: 'Marquee', tags: 'am,lobby', duration: 600 });
      expect(after.sources).toHaveLength(1);
      const patched = await call(
        'PATCH',
        `/playlists/${playlist.id}`,
        jsonPatch([
          { op: 'replace', path: '/type', value: 'Template' },
          { op: 'add', path: '/tags/-', value: 'pm' },
        ]),
        { type: 'application/json-patch+json' },
      );
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ type: 'Template', tags: 'am,lobby,pm' });
      const sourcesRefused = await call('PATCH', `/playlists/${playlist.id}`, jsonPatch([{ op: 'replace', path: '/sources', value: [] }]), {
        type: 'application/json-patch+json',
      });
      expect(sourcesRefused.status).toBe(400);
      const failedTest = await call('PATCH', `/playlists/${playlist.id}`, jsonPatch([{ op: 'test', path: '/name', value: 'Nope' }]), {
        type: 'application/json-patch+json',
      });
      expect(failedTest.status).toBe(422);
      // The media a playlist plays cannot be deleted (422 naming the playlist).
      const inUse = await call('DELETE', `/media/${uploaded.id}`);
      expect(inUse.status).toBe(422);
    });

    test("another account's playlists and groups look unknown", async () => {
      await unknownToOther('playlists', playlist.id, pgroup.id);
      expect((await other('POST', '/playlists', { name: 'B in A group', group_id: pgroup.id })).status).toBe(400);
      expect((await call('GET', `/playlists/${playlist.id}`)).body.name).toBe('Evening');
    });

    describe('REST templates', () => {
      let template: Json;
      let tgroup: Json;
      test('GET /templates, GET /templates/{id} in the reference shape; template groups', async () => {
        tgroup = (await call('POST', '/templates/groups', { name: 'Layouts' })).body;
        const made = await h.gql(
          'mutation($p: String, $g: String) { createTemplate(input: { name: "Split", width: 1920, height: 1080, groupId: $g, tags: ["hd"], modules: [{ name: "Main", type: "playlist", left: 0, top: 0, width: 1440, height: 1080, playlistId: $p }] }) { success error template { id } } }',
          { variables: { p: playlist.id, g: tgroup.id } },
        );
        expect(made.body.data!.createTemplate).toMatchObject({ success: true });
        template = (await call('GET', `/templates/${made.body.data!.createTemplate.template.id}`)).body;
        expect(template).toMatchObject({
          name: 'Split',
          width: 1920,
          height: 1080,
          orientation: 0,
          tags: 'hd',
          group_id: tgroup.id,
          group_name: 'Layouts',
          modules: [{ name: 'Main', left: 0, width: 1440, playlist_id: playlist.id, sequence: 1 }],
        });
        expect((await call('GET', `/templates?group_id=${tgroup.id}`)).body.map((t: Json) => t.id)).toEqual([template.id]);
        expect((await call('GET', `/templates?id=${template.id}&take=5`)).body).toHaveLength(1);
        expect((await call('GET', '/templates/groups')).body.map((g: Json) => g.name)).toContain('Layouts');
        expect((await call('PUT', `/templates/groups/${tgroup.id}`, { name: 'Layouts HD' })).status).toBe(204);
        // The playlist a template plays cannot be deleted.
        expect((await call('DELETE', `/playlists/${playlist.id}`)).status).toBe(422);
      });

      test('legacy /media, /playlists and /templates in json, xml and JSONP; a playlist as an RSS 2.0 feed of its sources', async () => {
        const legacy = (path: string, key = h.key) => fetch(`${h.legacyUrl}${path}${path.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(key)}`);
        const media = await legacy('/media?take=10');
        expect(media.status).toBe(200);
        const mediaList = (await media.json()) as Json[];
        expect(mediaList.find((m) => m.id === uploaded.id)).toMatchObject({ name: 'Patched', mime_type: 'image/png', file_size: PNG.length, tags: ['p'] });
        expect(await (await legacy(`/media/${uploaded.id}`)).json()).toMatchObject({ id: uploaded.id, file_name: 'pixel.png' });
        const xml = await legacy(`/media/${uploaded.id}?format=xml`);
        expect(xml.headers.get('content-type')).toMatch(/xml/);
        expect(await xml.text()).toMatch(new RegExp(`<medium><id>${uploaded.id}</id><name>Patched</name>`));
        const jsonp = await (await legacy(`/templates/${template.id}?callback=show`)).text();
        expect(jsonp).toMatch(/^\/\*\*\/ typeof show === 'function' && show\(\{/);
        expect(jsonp).toContain('"modules"');
        expect(await (await legacy('/templates?take=50')).json()).toEqual(expect.arrayContaining([expect.objectContaining({ id: template.id, width: 1920 })]));
        const pl = (await (await legacy(`/playlists/${playlist.id}`)).json()) as Json;
        expect(pl).toMatchObject({
          id: playlist.id,
          type: 'TEMPLATE',
          calculated_duration: 8,
          sources: [{ type: 'IMAGE', interval: 8, media: { id: uploaded.id, mime_type: 'image/png' } }],
        });
        expect(pl.sources[0].media.file_url).toMatch(/^http:\/\//);

        const rss = await legacy(`/playlists/${playlist.id}?format=rss`);
        expect(rss.status).toBe(200);
        expect(rss.headers.get('content-type')).toMatch(/application\/rss\+xml/);
        const feed = await rss.text();
        expect(feed).toMatch(
          /^<\?xml version="1.0" encoding="UTF-8"\?>\s*<rss version="2.0"><channel><title>Evening<\/title><link>http:\/\/[^<]+\/playlists\/[^<]+<\/link><description>[^<]+<\/description><item>/,
        );
        const item = feed.match(/<item>(.*?)<\/item>/)![1]!;
        expect(item).toMatch(/<title>[^<]+<\/title>/);
        expect(item).toContain(`<guid isPermaLink="false">${playlist.id}:`);
        const enclosure = item.match(/<enclosure url="([^"]+)" type="([^"]+)" length="(\d+)"\/>/)!;
        expect(enclosure[2]).toBe('image/png');
        expect(Number(enclosure[3])).toBe(PNG.length);
        const file = await fetch(enclosure[1]!.replace(/&amp;/g, '&'));
        expect(file.status).toBe(200);
        expect((await legacy('/playlists?format=rss')).headers.get('content-type')).toMatch(/rss/);
        expect((await legacy('/media?format=rss')).status).toBe(400);
        // Another account's ids are unknown here too.
        for (const path of [`/media/${uploaded.id}`, `/playlists/${playlist.id}`, `/playlists/${playlist.id}?format=rss`, `/templates/${template.id}`])
          expect((await legacy(path, otherKey)).status).toBe(404);
        expect(await (await legacy('/media', otherKey)).json()).toEqual([]);
      });

      test("another account's templates look unknown; then DELETE works for the owner", async () => {
        await unknownToOther('templates', template.id, tgroup.id);
        expect((await call('DELETE', `/templates/${template.id}`)).status).toBe(204);
        expect((await call('GET', `/templates/${template.id}`)).status).toBe(404);
        expect((await call('DELETE', `/templates/groups/${tgroup.id}`)).status).toBe(204);
        expect((await call('DELETE', `/playlists/${playlist.id}`)).status).toBe(204);
        expect((await call('DELETE', `/playlists/groups/${pgroup.id}`)).status).toBe(204);
        expect((await call('DELETE', `/media/${uploaded.id}`)).status).toBe(204);
        expect((await call('DELETE', `/media/groups/${group.id}`)).status).toBe(204);
        expect((await call('GET', `/media/${raw.id}`)).body.group_id).toBeNull();
      });
    });
  });
});
