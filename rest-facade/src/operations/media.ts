/** GET/PUT/PATCH/DELETE /media, /media/{id}, POST /media/import and /media/groups onto the content subgraph. */
import type { RestMediaFragment } from '@pylon/kit/generated/rest-operations.generated';
import { getOp, listOp, updateOp, patchOp, deleteOp, restOp, type FieldMap } from './declare.js';
import { fieldOf, payloadOf } from './shape.js';
import { toRestMedia } from './content-shape.js';
import { tagList } from './device-writes.js';
import { CONTENT_GROUP_EXTRA, groupOps, requireName } from './groups.js';

const toRest = (m: RestMediaFragment) => toRestMedia(m);

export const listMedia = listOp('listMedia', {
  root: 'media',
  count: 'total',
  params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName' },
  toRest,
});

export const getMedia = getOp('getMedia', { root: 'media', what: 'media', toRest });

/** The reference's MediaRequest; advertiser_id and is_shared have no Pylon field (accepted, not stored). */
const MEDIA_FIELDS = {
  name: 'name',
  group_id: 'groupId',
  tags: { to: 'tags', map: tagList },
  start_date: 'startDate',
  end_date: 'endDate',
  advertiser_id: false,
  is_shared: false,
} as const satisfies FieldMap;

/** PUT answers 204 like the reference; what the body leaves out is reset. */
export const updateMedia = updateOp('updateMedia', {
  root: 'updateMedia',
  record: 'media',
  body: { finish: requireName, fields: MEDIA_FIELDS, resetTo: { tags: [], groupId: null, startDate: null, endDate: null } },
  status: 204,
  toRest,
});

export const patchMedia = patchOp('patchMedia', {
  root: 'patchMedia',
  record: 'media',
  value: (path, value) => (path === '/tags' ? tagList(value) : value),
  toRest,
});

export const deleteMedia = deleteOp('deleteMedia', { root: 'deleteMedia' });

/** POST /media/import?url=&group_id=: the download happens in the content service (SSRF-safe). */
const IMPORT_FIELDS = { 'input.url': 'url', 'input.groupId': 'group_id', url: 'url', groupId: 'group_id', input: 'url' };
export const importMedia = restOp('importMedia', {
  variables: ({ query }) => ({ input: { url: query.url, groupId: query.group_id } }),
  respond: (data) => ({ status: 201, body: toRestMedia(fieldOf(payloadOf(data, 'createMediaFromUrl', IMPORT_FIELDS), 'media')) }),
  fieldNames: IMPORT_FIELDS,
  accepts: { query: ['url', 'group_id'] },
});

export const {
  list: listMediaGroups,
  create: createMediaGroup,
  update: updateMediaGroup,
  remove: deleteMediaGroup,
} = groupOps(
  {
    list: 'mediaGroups',
    create: 'createMediaGroup',
    update: 'updateMediaGroup',
    remove: 'deleteMediaGroup',
  },
  CONTENT_GROUP_EXTRA,
);
