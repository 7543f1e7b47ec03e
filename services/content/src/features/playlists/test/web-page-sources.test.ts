/**
 * Web page sources (addPlaylistWebPage): a WEB_PAGE source without a media file, its address kept
 * (http or https, no credentials, bounded), named after the host unless named; it reaches players
 * through playerContent with its `url`; another account's playlist is not found.
 */
import { playerContent } from '../../player-content/player-content.js';
import { principal, startContent, type ContentFixture } from '../../../../test/fixtures/content.js';

let f: ContentFixture;
beforeAll(async () => {
  f = await startContent();
});
afterAll(async () => {
  await f?.close();
});

const ADD = `mutation($i: AddPlaylistWebPageInput!) { addPlaylistWebPage(input: $i) { success errorCode errorField
  playlist { id sources { name type interval url media { id } } } } }`;
const newPlaylist = async (who = principal('acc-a')) =>
  ((await f.run('mutation { createPlaylist(input: { name: "Web" }) { playlist { id } } }', {}, who)).data!.createPlaylist as { playlist: { id: string } })
    .playlist.id;

test('a web page source keeps its address; players get it with the playlist', async () => {
  const id = await newPlaylist();
  const r = await f.run(ADD, { i: { playlistId: id, url: 'https://example.com/menu?x=1', interval: 20 } });
  expect(r.data!.addPlaylistWebPage).toMatchObject({
    success: true,
    playlist: { sources: [{ name: 'example.com', type: 'WEB_PAGE', interval: 20, url: 'https://example.com/menu?x=1', media: null }] },
  });
  const named = await f.run(ADD, { i: { playlistId: id, url: 'http://intranet.local/board', name: 'Board' } });
  expect(named.data!.addPlaylistWebPage.playlist.sources[1]).toMatchObject({ name: 'Board', interval: null, url: 'http://intranet.local/board' });
  const content = await playerContent(f.sg.runtime, 'acc-a', { playlistIds: [id], templateIds: [] });
  expect(content.playlists.get(id)!.sources.map((s) => [s.type, s.url, s.media])).toEqual([
    ['WEB_PAGE', 'https://example.com/menu?x=1', null],
    ['WEB_PAGE', 'http://intranet.local/board', null],
  ]);
});

test.each([
  ['javascript:alert(1)', 'url'],
  ['file:///etc/passwd', 'url'],
  ['https://user:secret@example.com/', 'url'],
  ['not a url', 'url'],
  [`https://example.com/${'a'.repeat(2000)}`, 'url'],
])('%s is refused naming %s', async (url, field) => {
  const id = await newPlaylist();
  expect((await f.run(ADD, { i: { playlistId: id, url } })).data!.addPlaylistWebPage).toMatchObject({ success: false, errorField: field });
});

test("another account's playlist is not found", async () => {
  const foreign = await newPlaylist(principal('acc-b'));
  const r = await f.run(ADD, { i: { playlistId: foreign, url: 'https://example.com/' } });
  expect(r.data!.addPlaylistWebPage).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
});

test('a validity window (content expiry): kept in UTC, checked as stored on update, refused inverted naming the field, carried to players', async () => {
  const id = await newPlaylist();
  const add = `mutation($i: AddPlaylistWebPageInput!) { addPlaylistWebPage(input: $i) { success error errorField playlist { sources { id validFrom validUntil } } } }`;
  const r = await f.run(add, { i: { playlistId: id, url: 'https://example.com/sale', validFrom: '2030-11-27T01:00:00+01:00', validUntil: '2030-12-01' } });
  expect(r.data!.addPlaylistWebPage).toMatchObject({
    success: true,
    playlist: { sources: [{ validFrom: '2030-11-27T00:00:00Z', validUntil: '2030-12-01T00:00:00Z' }] },
  });
  const sourceId = r.data!.addPlaylistWebPage.playlist.sources[0].id as string;
  const update = `mutation($i: UpdatePlaylistSourceInput!) { updatePlaylistSource(input: $i) { success error errorField playlist { sources { validFrom validUntil } } } }`;
  // Only validUntil sent: checked against the stored validFrom.
  const inverted = await f.run(update, { i: { playlistId: id, sourceId, validUntil: '2030-11-26T00:00:00Z' } });
  expect(inverted.data!.updatePlaylistSource).toMatchObject({ success: false, errorField: 'validUntil', error: 'validUntil must be after validFrom' });
  const zoneless = await f.run(add, { i: { playlistId: id, url: 'https://example.com/', validFrom: '2030-11-27T00:00:00' } });
  expect(zoneless.data!.addPlaylistWebPage).toMatchObject({ success: false, errorField: 'validFrom' });
  const lifted = await f.run(update, { i: { playlistId: id, sourceId, validFrom: null } });
  expect(lifted.data!.updatePlaylistSource.playlist.sources[0]).toEqual({ validFrom: null, validUntil: '2030-12-01T00:00:00Z' });
  const content = await playerContent(f.sg.runtime, 'acc-a', { playlistIds: [id], templateIds: [] });
  expect(content.playlists.get(id)!.sources[0]).toMatchObject({ validFrom: null, validUntil: '2030-12-01T00:00:00Z' });
});
