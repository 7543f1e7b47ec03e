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
