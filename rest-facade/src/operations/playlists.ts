/** /playlists, /playlists/{id} and /playlists/groups onto the content subgraph (PlaylistType in the reference's values). */
import type { RestPlaylistFragment } from '@pylon/kit/generated/rest-operations.generated';
import { createOp, deleteOp, getOp, listOp, patchOp, updateOp, type FieldMap } from './declare.js';
import { enumToGql, toRestPlaylist } from './content-shape.js';
import { tagList } from './device-writes.js';
import { CONTENT_GROUP_EXTRA, groupOps, requireName } from './groups.js';

const toRest = (p: RestPlaylistFragment) => toRestPlaylist(p);

/** Filters live in the document's `where` (the playlist query has no id/group arguments). */
export const listPlaylists = listOp('listPlaylists', {
  root: 'playlist',
  count: 'total',
  params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName' },
  toRest,
});

export const getPlaylist = getOp('getPlaylist', { root: 'playlist', what: 'playlist', toRest });

/** null type: the default, Multimedia. */
const playlistType = (v: unknown) => (v === null ? 'MULTIMEDIA' : enumToGql(v));

/**
 * The reference's Playlist as a request: the writable members map, the read-only ones and `sources`
 * (edited with the GraphQL source mutations) are accepted and ignored, so a body read with GET can
 * be sent back; is_random_start has no Pylon field.
 */
const PLAYLIST_FIELDS = {
  name: 'name',
  type: { to: 'type', map: playlistType },
  duration: 'duration',
  group_id: 'groupId',
  tags: { to: 'tags', map: tagList },
  is_random_start: false,
  id: false,
  group_name: false,
  created_on: false,
  created_by_id: false,
  modified_on: false,
  modified_by_id: false,
  sources: false,
} as const satisfies FieldMap;

export const createPlaylist = createOp('createPlaylist', {
  root: 'createPlaylist',
  record: 'playlist',
  body: { fields: PLAYLIST_FIELDS, finish: requireName },
  toRest,
});

/** PUT answers 204 like the reference; what the body leaves out is reset. */
export const updatePlaylist = updateOp('updatePlaylist', {
  root: 'updatePlaylist',
  record: 'playlist',
  body: { finish: requireName, fields: PLAYLIST_FIELDS, resetTo: { type: 'MULTIMEDIA', duration: null, groupId: null, tags: [] } },
  status: 204,
  toRest,
});

export const patchPlaylist = patchOp('patchPlaylist', {
  root: 'patchPlaylist',
  record: 'playlist',
  value: (path, value) => (path === '/tags' ? tagList(value) : path === '/type' ? enumToGql(value) : value),
  toRest,
});

export const deletePlaylist = deleteOp('deletePlaylist', { root: 'deletePlaylist' });

export const {
  list: listPlaylistGroups,
  create: createPlaylistGroup,
  update: updatePlaylistGroup,
  remove: deletePlaylistGroup,
} = groupOps(
  {
    list: 'playlistGroups',
    create: 'createPlaylistGroup',
    update: 'updatePlaylistGroup',
    remove: 'deletePlaylistGroup',
  },
  CONTENT_GROUP_EXTRA,
);
