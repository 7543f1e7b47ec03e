/** /playlists, /playlists/{id} and /playlists/groups onto the content subgraph (PlaylistType in the reference's values). */
import { createOp, deleteOp, patchOp, updateOp, type FieldMap } from './declare.js';
import { whereReads } from './content-reads.js';
import { enumToGql, toRestPlaylist } from './content-shape.js';
import { tagList, tagsPatched } from './device-writes.js';
import { groupOps, requireName } from './groups.js';
import { answers, created, JSON_PATCH_BODY, jsonBody, md, noContent, params, ref, route } from './route.js';

/** Filters live in the document's `where` (the playlist query has no id/group arguments). */
export const { list: listPlaylists, get: getPlaylist } = whereReads({
  noun: 'playlist',
  tag: 'Playlists',
  notes: 'Sources come in play order.',
  toRest: toRestPlaylist,
});

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

export const createPlaylist = route(
  'POST /playlists',
  {
    tags: ['Playlists'],
    summary: 'Create a playlist.',
    description: md(
      "Takes the reference's Playlist: name (required), type (default Multimedia), duration, group_id,",
      'tags ("a,b"). Read-only members (id, created_on, ...) and `sources` are accepted and ignored:',
      'sources are added with the GraphQL source mutations (addPlaylistSource, ...). Policy: Playlists_Edit.',
    ),
    requestBody: jsonBody('PlaylistRequest'),
    responses: created('The new playlist.', ref('Playlist'), 400, 401, 403, 500),
  },
  createOp('createPlaylist', {
    root: 'createPlaylist',
    record: 'playlist',
    body: { fields: PLAYLIST_FIELDS, finish: requireName },
    toRest: toRestPlaylist,
  }),
);

/** PUT answers 204 like the reference; what the body leaves out is reset. */
export const updatePlaylist = route(
  'PUT /playlists/{id}',
  {
    tags: ['Playlists'],
    summary: "Replace a playlist's properties.",
    description: md(
      'name, type, duration, group_id and tags; what the body leaves out is reset (type to Multimedia).',
      'Read-only members and `sources` are accepted and ignored (a body read with GET can be sent back).',
      'Policy: Playlists_Edit. Answers 204, as the reference does.',
    ),
    parameters: params('IdPath'),
    requestBody: jsonBody('PlaylistRequest'),
    responses: noContent('Updated; GET /playlists/{id} reads it.', 400, 401, 403, 404, 409, 500),
  },
  updateOp('updatePlaylist', {
    root: 'updatePlaylist',
    record: 'playlist',
    body: { finish: requireName, fields: PLAYLIST_FIELDS, resetTo: { type: 'MULTIMEDIA', duration: null, groupId: null, tags: [] } },
    status: 204,
    toRest: toRestPlaylist,
  }),
);

export const patchPlaylist = route(
  'PATCH /playlists/{id}',
  {
    tags: ['Playlists'],
    summary: 'JSON Patch a playlist.',
    description: md(
      'Paths in snake_case: /name, /type (the reference\'s values), /duration, /group_id, /tags (a "a,b"',
      'string or a list). Read-only paths (/id, /sources, ...) are refused with 400 and nothing changes;',
      'a failed `test` is 422; a concurrent change is 409. Policy: Playlists_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: JSON_PATCH_BODY,
    responses: answers('The patched playlist.', ref('Playlist'), 400, 401, 403, 404, 409, 422, 500),
  },
  patchOp('patchPlaylist', {
    root: 'patchPlaylist',
    record: 'playlist',
    value: (path, value) => (path === '/type' ? enumToGql(value) : tagsPatched(path, value)),
    toRest: toRestPlaylist,
  }),
);

export const deletePlaylist = route(
  'DELETE /playlists/{id}',
  {
    tags: ['Playlists'],
    summary: 'Delete a playlist.',
    description: md('Refused with 422 while a template module plays it. Policy: Playlists_Delete.'),
    parameters: params('IdPath'),
    responses: noContent('Deleted.', 401, 403, 404, 422, 500),
  },
  deleteOp('deletePlaylist', { root: 'deletePlaylist' }),
);

export const {
  list: listPlaylistGroups,
  create: createPlaylistGroup,
  update: updatePlaylistGroup,
  remove: deletePlaylistGroup,
} = groupOps({
  path: '/playlists/groups',
  tag: 'Playlists',
  noun: 'playlist',
  plural: 'playlists',
  policy: 'Playlists',
  schema: 'ContentGroup',
  request: 'ContentGroupRequest',
});
