/** GET/PUT/PATCH/DELETE /media, /media/{id}, POST /media/import and /media/groups onto the content subgraph. */
import { byIdGetOp, listOp, updateOp, patchOp, deleteOp, restOp, type FieldMap } from './declare.js';
import { fieldOf, payloadOf } from './shape.js';
import { toRestMedia } from './content-shape.js';
import { tagList, tagsPatched } from './device-writes.js';
import { groupOps, requireName } from './groups.js';
import { answers, arrayOf, byId, created, documented, JSON_PATCH_BODY, jsonBody, md, noContent, params, ref, route } from './route.js';
import { gql } from './gql.js';

export const listMedia = route(
  'GET /media',
  {
    tags: ['Media'],
    summary: "Media assets of the caller's account.",
    description: md(
      'Every filter given must match (group_id and group_name match any of their values), by name.',
      '`file_url` and `thumbnail_url` are signed addresses that expire. Policy: Files_View.',
    ),
    parameters: params('IdQuery', 'Take', 'Page', 'GroupId', 'GroupName'),
    responses: answers('One page of media (possibly empty).', arrayOf('Media'), 400, 401, 403, 500, 503),
  },
  listOp('listMedia', {
    document: gql`
      # GET /media. Variables come from rest-facade/src/operations/media.ts (take/page -> limit/offset).
      query listMedia($id: [String!], $groupId: [String!], $groupName: [String!], $limit: Int, $offset: Int) {
        media(id: $id, groupId: $groupId, groupName: $groupName, order: [{ name: ASC }, { id: ASC }], limit: $limit, offset: $offset) {
          ...RestMedia
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, counted by the store.
        total: mediaCount(id: $id, groupId: $groupId, groupName: $groupName)
      }
    `,
    root: 'media',
    count: 'total',
    params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName' },
    toRest: toRestMedia,
  }),
);

export const getMedia = route(
  'GET /media/{id}',
  {
    tags: ['Media'],
    summary: 'One media asset.',
    description: md("404 when no media of the caller's account has this id. Policy: Files_View."),
    ...byId('The media.', 'Media', 400, 401, 403, 404, 500, 503),
  },
  byIdGetOp('getMedia', { from: 'list', root: 'media', fragment: 'RestMedia', what: 'media', toRest: toRestMedia }),
);

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
export const updateMedia = route(
  'PUT /media/{id}',
  {
    tags: ['Media'],
    summary: "Replace a media asset's metadata.",
    description: md(
      'The file is not replaced. Every writable field left out is reset (tags to none, group and',
      'dates to null); `name` is required. advertiser_id and is_shared are accepted and not stored.',
      'Policy: Files_Edit. Answers 204, as the reference does.',
    ),
    parameters: params('IdPath'),
    requestBody: jsonBody('MediaRequest'),
    responses: noContent('Updated; GET /media/{id} reads it.', 400, 401, 403, 404, 500),
  },
  updateOp('updateMedia', {
    root: 'updateMedia',
    record: 'media',
    body: { finish: requireName, fields: MEDIA_FIELDS, resetTo: { tags: [], groupId: null, startDate: null, endDate: null } },
    status: 204,
    toRest: toRestMedia,
  }),
);

export const patchMedia = route(
  'PATCH /media/{id}',
  {
    tags: ['Media'],
    summary: "JSON Patch a media asset's metadata.",
    description: md(
      'Paths in snake_case: /name, /group_id, /tags (a "a,b" string or a list), /start_date, /end_date.',
      'Read-only paths are refused with 400 and nothing changes; a failed `test` is 422. Content-Type',
      'application/json-patch+json or application/json. Policy: Files_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: JSON_PATCH_BODY,
    responses: answers('The patched media.', ref('Media'), 400, 401, 403, 404, 409, 422, 500),
  },
  patchOp('patchMedia', {
    root: 'patchMedia',
    record: 'media',
    value: tagsPatched,
    toRest: toRestMedia,
  }),
);

export const deleteMedia = route(
  'DELETE /media/{id}',
  {
    tags: ['Media'],
    summary: 'Delete a media asset and its file.',
    description: md('Refused with 422 while a playlist plays it (the message names the playlists). Policy: Files_Delete.'),
    parameters: params('IdPath'),
    responses: noContent('Deleted.', 401, 403, 404, 422, 500),
  },
  deleteOp('deleteMedia', { root: 'deleteMedia' }),
);

/** POST /media/import?url=&group_id=: the download happens in the content service (SSRF-safe). */
const IMPORT_FIELDS = { 'input.url': 'url', 'input.groupId': 'group_id', url: 'url', groupId: 'group_id', input: 'url' };
export const importMedia = route(
  'POST /media/import',
  {
    tags: ['Media'],
    summary: 'Import a media file from a URL.',
    description: md(
      'Downloads `url` (http or https; private, loopback, link-local and metadata addresses are refused',
      'after DNS resolution and on every redirect unless allow-listed by the operator) into the',
      "account's media, in `group_id` when given. Size and time are capped. Policy: Files_Edit.",
    ),
    parameters: [
      {
        name: 'url',
        in: 'query',
        required: true,
        description: 'http or https address of the file.',
        schema: { type: 'string', minLength: 1, maxLength: 2000 },
      },
      { name: 'group_id', in: 'query', description: 'A media group of the account.', schema: { type: 'string', minLength: 1, maxLength: 200 } },
    ],
    responses: created('The stored media.', ref('Media'), 400, 401, 403, 413, 415, 500),
  },
  restOp('importMedia', {
    document: gql`
      # POST /media/import?url=&group_id=: the service downloads the file (SSRF-safe, size and time capped).
      mutation importMedia($input: CreateMediaFromUrlInput!) {
        createMediaFromUrl(input: $input) {
          ...RestOutcome
          media {
            ...RestMedia
          }
        }
      }
    `,
    variables: ({ query }) => ({ input: { url: query.url, groupId: query.group_id } }),
    respond: (data) => ({ status: 201, body: toRestMedia(fieldOf(payloadOf(data, 'createMediaFromUrl', IMPORT_FIELDS), 'media')) }),
    fieldNames: IMPORT_FIELDS,
    accepts: { query: ['url', 'group_id'] },
  }),
);

export const {
  list: listMediaGroups,
  create: createMediaGroup,
  update: updateMediaGroup,
  remove: deleteMediaGroup,
} = groupOps({ path: '/media/groups', tag: 'Media', noun: 'media', plural: 'medias', policy: 'Files', schema: 'ContentGroup', request: 'ContentGroupRequest' });

export const uploadMedia = documented('POST /media', {
  tags: ['Media'],
  'x-pylon-handler': 'content',
  summary: 'Upload a media file (multipart/form-data).',
  description: md(
    'The `file` part streams to storage (never buffered whole); its type is judged by its bytes',
    '(video, audio, PDF, and images a decoder reads: width and height known; 415 with the reason for',
    'others, for truncated or undecodable images, and for SVG, refused because it can carry scripts),',
    'its size capped (413). Form fields as the reference:',
    'name (default: the file name), group_id, tags ("a,b"), start_date, end_date; advertiser_id and',
    "is_shared are accepted and not stored. Served by the content service's upload router",
    '(x-pylon-handler: content). Policy: Files_Edit.',
  ),
  requestBody: { required: true, content: { 'multipart/form-data': { schema: ref('MediaUpload') } } },
  responses: created('The stored media.', ref('Media'), 400, 401, 403, 413, 415, 500),
});

export const uploadMediaToGroup = documented('POST /media/{group_id}/{file_name}', {
  tags: ['Media'],
  'x-pylon-handler': 'content',
  summary: 'Upload a file (the raw body) into a media group.',
  description: md(
    'The body is the file itself, streamed to storage; `file_name` names it. Query parameters as',
    'the reference: name, description (stored as tags, "a,b"), start_date, end_date; shared and',
    "advertiser_id are accepted and not stored. Served by the content service's upload router",
    '(x-pylon-handler: content). Policy: Files_Edit.',
  ),
  parameters: [
    {
      name: 'group_id',
      in: 'path',
      required: true,
      description: 'A media group of the account.',
      schema: { type: 'string', minLength: 1, maxLength: 200 },
    },
    { name: 'file_name', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 255 } },
    { name: 'name', in: 'query', schema: { type: 'string', maxLength: 200 } },
    { name: 'description', in: 'query', description: 'Tags, comma-separated.', schema: { type: 'string', maxLength: 2000 } },
    { name: 'start_date', in: 'query', schema: { type: 'string', format: 'date-time' } },
    { name: 'end_date', in: 'query', schema: { type: 'string', format: 'date-time' } },
    { name: 'shared', in: 'query', description: 'Accepted and not stored.', schema: { type: 'boolean', default: false } },
    { name: 'advertiser_id', in: 'query', description: 'Accepted and not stored.', schema: { type: 'integer' } },
  ],
  requestBody: {
    required: true,
    'x-reference-deviation': "The file is the raw request body (the reference's document declares none, its clients send the file).",
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  },
  responses: created('The stored media.', ref('Media'), 400, 401, 403, 404, 413, 415, 500),
});
