/**
 * The demo account's content (npm start): three generated images and one short video, two
 * playlists playing them, and a two-zone template using both playlists. Goes through the same
 * use cases as the API, so the files are real blobs with real metadata.
 */
import { Readable } from 'node:stream';
import { createGroup, type Principal } from '@pylon/kit';
import { addMedia, addPlaylistSource, createPlaylist, createTemplate, type ContentRuntime } from '@pylon/content';
import { sampleAvi, samplePng } from './sample-media.js';

/** Seeds the demo content; answers the playlists' and the template's ids (demo schedules play them), null when content existed already. */
export async function seedDemoContent(
  rt: ContentRuntime,
  principal: Principal,
): Promise<{ lobbyPlaylistId: string; sidePlaylistId: string; templateId: string } | null> {
  if ((await rt.repo.media.find(principal.accountId, {}, { limit: 1 })).length) return null;
  const brand = await createGroup(rt.repo.media.groupTree, principal, { name: 'Brand' });
  const file = async (name: string, fileName: string, bytes: Buffer, tags: string[]) =>
    addMedia(rt, principal, Readable.from([bytes]), { name, fileName, groupId: brand.id, tags });
  const welcome = await file('Welcome', 'welcome.png', await samplePng(1280, 720, '#1d4ed8', 'welcome'), ['lobby']);
  const menu = await file('Menu', 'menu.png', await samplePng(1280, 720, '#b45309', 'menu'), ['cafeteria']);
  const sale = await file('Sale', 'sale.png', await samplePng(720, 1280, '#be123c', 'sale'), ['retail']);
  const clip = await file('Intro clip', 'intro.avi', await sampleAvi(320, 180, 5), ['lobby']);

  const lobby = await createPlaylist(rt, principal, { name: 'Lobby loop', type: 'MULTIMEDIA', tags: ['lobby'] });
  await addPlaylistSource(rt, principal, { playlistId: lobby.id, fileId: welcome.id, interval: 10 });
  await addPlaylistSource(rt, principal, { playlistId: lobby.id, fileId: clip.id });
  await addPlaylistSource(rt, principal, { playlistId: lobby.id, fileId: menu.id, interval: 8 });
  const side = await createPlaylist(rt, principal, { name: 'Side panel', type: 'SLIDESHOW' });
  await addPlaylistSource(rt, principal, { playlistId: side.id, fileId: sale.id, interval: 15 });
  await addPlaylistSource(rt, principal, { playlistId: side.id, fileId: menu.id, interval: 15 });

  const template = await createTemplate(rt, principal, {
    name: 'Main and side',
    width: 1920,
    height: 1080,
    orientation: 0,
    modules: [
      { name: 'Main', type: 'playlist', left: 0, top: 0, width: 1440, height: 1080, playlistId: lobby.id },
      { name: 'Side', type: 'playlist', left: 1440, top: 0, width: 480, height: 1080, playlistId: side.id },
    ],
  });
  return { lobbyPlaylistId: lobby.id, sidePlaylistId: side.id, templateId: template.id };
}
