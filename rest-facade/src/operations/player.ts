/**
 * The player API (/player/...): called by the screens themselves, authenticated by their
 * registration key in the path (not by API keys). Served by the devices service (x-pylon-handler:
 * player), mounted in front of this facade; documented here so players and operators find it in
 * one place.
 */
import { answers, documented, errors, json, jsonBody, md, noContent, params, ref, type RouteAt } from './route.js';

/** Every player route: served by the devices service, authenticated by the key in its path (no API key). */
const PLAYER = { tags: ['Player'], 'x-pylon-handler': 'player', security: [] };

/** What every batch endpoint of the player (play logs, events, impressions) promises. */
const BATCH_RULES = [
  'A batch of 1 to 1000 records (a JSON array, at most 1 MB); one invalid record refuses the',
  'whole batch with 400 naming it as `[index].field`. Timestamps may be at most 5 minutes ahead',
  "of the service's clock and at most PLAYER_RECORD_MAX_AGE_DAYS (default 90) days old. Each",
  "record's `id` (optional, unique in the batch) is kept; without one the id is a digest of the",
  'device and the record. Sending the same batch again (a retry after a timeout) stores each',
  'record once. `202` means the batch is durably held: it survives any crash after the answer.',
  '`503` (with Retry-After) means nothing was held: send the same batch again later. An unknown',
  "key is 401 and counts against the address like a ping's.",
];

/**
 * A batch endpoint (`POST /player/{registrationKey}/<records>`): its own description lines, then
 * BATCH_RULES; its body 1 to 1000 records of `record`, held (202) or refused whole.
 */
const batchRoute = (at: RouteAt, { summary, description, record }: { summary: string; description: string[]; record: string }) =>
  documented(at, {
    ...PLAYER,
    summary,
    description: md(...description, ...BATCH_RULES),
    parameters: params('RegistrationKeyPath'),
    requestBody: { required: true, content: json({ type: 'array', minItems: 1, maxItems: 1000, items: ref(record) }) },
    responses: {
      '202': { description: 'Held; the stored id of each record, in order.', content: json(ref('PlayerIngestResult')) },
      ...errors(400, 401, 413, 429, 503),
    },
  });

export const playerPing = documented('POST /player/{registrationKey}/ping', {
  ...PLAYER,
  summary: "A device's heartbeat; answers the commands queued for it.",
  description: md(
    "Updates the device's ping data (so is_online and ping_data follow the last ping; the",
    "service's clock stamps it), publishes a ping log for analytics, evaluates the account's",
    'alert rules, and answers the commands queued for the device, each handed out once (they',
    'become `delivered`). `wait=N` (seconds, at most DEVICE_PING_MAX_WAIT_SECONDS, default 30)',
    'long-polls: with nothing queued the answer waits until a command is sent (through any',
    'replica), the manifest changes, a data table named in `tables` changes, or N seconds pass. The body may carry `snap`, a base64 JPEG screenshot. Unknown',
    'properties are refused with 400; an unknown key is 401.',
  ),
  parameters: [
    ...params('RegistrationKeyPath'),
    { name: 'wait', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 300 } },
    {
      name: 'tables',
      in: 'query',
      description:
        'Comma-separated ids (at most 20) of the data tables the screen shows (menu boards): a change to the rows of one of them also ends the wait, and the screen re-reads their rows (GET /player/{registrationKey}/datatables/{tableId}/rows with If-None-Match).',
      schema: { type: 'string' },
    },
  ],
  requestBody: { content: json(ref('PlayerPing')) },
  responses: answers('The commands to carry out (possibly none).', ref('PlayerPingResult'), 400, 401, 413, 415),
});

export const playerAckCommand = documented('POST /player/{registrationKey}/commands/{commandId}/ack', {
  ...PLAYER,
  summary: 'Report what became of a command.',
  description: md(
    '`status`: acknowledged (carried out; `delivered` means the same) or failed (with an optional',
    '`message`). Repeating the same ack changes nothing; acking an expired command or changing a',
    'reported outcome is 422. A command of another device is 404.',
  ),
  parameters: [...params('RegistrationKeyPath'), { name: 'commandId', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 200 } }],
  requestBody: { content: json(ref('CommandAck')) },
  responses: {
    '200': {
      description: "The command's status.",
      content: {
        'application/json': {
          schema: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string', enum: ['acknowledged', 'failed'] } } },
        },
      },
    },
    ...errors(400, 401, 404, 422),
  },
});

export const playerPutSnap = documented('PUT /player/{registrationKey}/snap', {
  ...PLAYER,
  summary: 'Upload the current screenshot.',
  description:
    'A JPEG body (Content-Type image/jpeg, at most DEVICE_SNAP_MAX_BYTES, default 2 MB); the type is checked by its magic bytes, not trusted from the header (415 otherwise). Replaces the previous screenshot.',
  parameters: params('RegistrationKeyPath'),
  requestBody: { required: true, content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } } } },
  responses: noContent('Stored.', 401, 413, 415),
});

export const playerTrack = documented('POST /player/{registrationKey}/track', {
  ...PLAYER,
  summary: 'Record an event from the device itself.',
  description: 'As POST /devices/{id}/track, authenticated by the registration key.',
  parameters: params('RegistrationKeyPath'),
  requestBody: jsonBody('Event'),
  responses: {
    '202': { description: 'Accepted.', content: json(ref('TrackedEvent')) },
    ...errors(400, 401),
  },
});

export const playerPlayLogs = batchRoute('POST /player/{registrationKey}/playlogs', {
  summary: 'Proof of play - what the screen showed, when and for how long.',
  description: [
    "Each play log names the media file it played (`file_id`). The file's name is stored with the",
    'play, so play statistics keep it after the file is renamed or deleted. A `file_id` that names',
    "no media file of the device's account is kept, flagged as unknown, and listed in",
    "`unknown_file_ids`; it is not refused. A play that started outside its file's validity window",
    '(`start_date`/`end_date`, GraphQL `validFrom`/`validUntil`: content expiry) is refused, not stored',
    'and never counted, and listed in `outside_validity_ids`.',
  ],
  record: 'PlayerPlayLog',
});

export const playerEvents = batchRoute('POST /player/{registrationKey}/events', {
  summary: 'Events the player itself records (touches, sessions, custom events).',
  description: [
    "As POST /player/{registrationKey}/track, in batches, with the player's own timestamps (the",
    "service's clock when absent) and an optional position (the device's location when absent).",
  ],
  record: 'PlayerEventRecord',
});

export const playerImpressions = batchRoute('POST /player/{registrationKey}/impressions', {
  summary: "Audience detections from the screen's sensors.",
  description: [
    'What a sensor (motion, face detection, BLE, WiFi) detected in front of the screen: when, for',
    'how long (`dwell_time`, seconds), an anonymous `visitor_id`, and, where the sensor estimates',
    'them, gender and age range (the analytics enums AnalyticsGender and AnalyticsAgeRange).',
  ],
  record: 'PlayerImpression',
});

export const playerManifest = documented('GET /player/{registrationKey}/manifest', {
  ...PLAYER,
  summary: 'What the device plays now and next, with every file it needs.',
  description: md(
    "Resolved by the scheduling engine for the device (its time zone, else the account's): `now`",
    "is the winning schedule's content (a playlist with its sources in play order, or a template",
    "with its modules' playlists), `next` what follows at `valid_until` (the next change; null",
    "when nothing changes within the engine's horizon). Each file has a signed, expiring `url`",
    "(relative to this API's base unless a public base URL is configured; fetch it without a key),",
    'its `size` and hex `sha512`. `version` changes exactly when what the device should play',
    "changes (schedules, playlists, templates, media, the device's zone); pings carry it as",
    '`manifest_version`, so a player refetches only then. The `ETag` also covers the signed',
    'addresses: with `If-None-Match` an unchanged manifest is a 304 without a body. An unknown key is 401.',
  ),
  parameters: [{ $ref: '#/components/parameters/RegistrationKeyPath' }, { name: 'If-None-Match', in: 'header', schema: { type: 'string', maxLength: 1000 } }],
  responses: {
    '200': {
      description: 'The manifest.',
      headers: { ETag: { schema: { type: 'string' } } },
      content: json(ref('PlayerManifest')),
    },
    '304': { description: 'Unchanged since the ETag given in If-None-Match.' },
    '503': { description: 'Manifests are not served by this deployment, or scheduling could not be reached; retry.' },
    ...errors(401),
  },
});

export const playerDataTableRows = documented('GET /player/{registrationKey}/datatables/{tableId}/rows', {
  ...PLAYER,
  summary: 'The rows a menu-board module shows.',
  description: md(
    "For a template module with a `data_table_id` (in the manifest): the table's visible columns",
    "(HIDDEN ones left out) and its first 100 rows in table order, read as the device's account",
    "(another account's table is a 404 like an unknown one). The `ETag` changes with every write",
    'to the table: poll with `If-None-Match` (304 without a body while unchanged). An unknown key is 401.',
  ),
  parameters: [
    ...params('RegistrationKeyPath'),
    { name: 'tableId', in: 'path', required: true, schema: { type: 'string', maxLength: 200 } },
    { name: 'If-None-Match', in: 'header', schema: { type: 'string', maxLength: 1000 } },
  ],
  responses: {
    '200': {
      description: 'The columns and rows.',
      headers: { ETag: { schema: { type: 'string' } } },
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['table_id', 'name', 'columns', 'rows'],
            properties: {
              table_id: { type: 'string' },
              name: { type: 'string' },
              columns: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['key', 'name', 'type'],
                  properties: { key: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' } },
                },
              },
              rows: { type: 'array', maxItems: 100, items: { type: 'object', additionalProperties: true } },
            },
          },
        },
      },
    },
    '304': { description: 'Unchanged since the ETag given in If-None-Match.' },
    '503': { description: 'Data-table rows are not served to players by this deployment (distributed mode, for now).' },
    ...errors(401, 404),
  },
});

export const playerRequestPairing = documented('POST /player/pairings', {
  ...PLAYER,
  summary: 'A screen without a key asks for a pairing code.',
  description: md(
    'What /play does on a fresh screen: a 6-character code to show (unambiguous alphabet, valid 10',
    'minutes, single use) and a secret to poll with (never shown; only the secret reveals the key).',
    'An operator claims the code with `claimDevice` / `POST /devices/claim`. 30 requests per client',
    'address per 10 minutes, then 429 with Retry-After.',
  ),
  requestBody: {
    required: false,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          description: 'What the operator may see of the screen (all optional, trimmed).',
          properties: {
            user_agent: { type: 'string', maxLength: 1000 },
            width: { type: 'integer', minimum: 1, maximum: 100000 },
            height: { type: 'integer', minimum: 1, maximum: 100000 },
          },
        },
      },
    },
  },
  responses: {
    '201': {
      description: 'The pending pairing request.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['code', 'secret', 'expires_at', 'poll_interval_ms'],
            properties: {
              code: { type: 'string', pattern: '^[A-Z0-9]{6}$' },
              secret: { type: 'string' },
              expires_at: { type: 'string', format: 'date-time' },
              poll_interval_ms: { type: 'integer' },
            },
          },
        },
      },
    },
    ...errors(429),
  },
});

export const playerPollPairing = documented('GET /player/pairings/{secret}', {
  ...PLAYER,
  summary: 'The screen polls its pairing request.',
  description: md(
    "`pending` until an operator claims the code, then `claimed` with the device's registration key",
    '(answered for 2 minutes after the claim, so a lost answer can be asked again). Unknown or',
    'expired: 404 (ask for a new code).',
  ),
  parameters: [{ name: 'secret', in: 'path', required: true, schema: { type: 'string', maxLength: 100 } }],
  responses: {
    '200': {
      description: "The request's state.",
      content: {
        'application/json': {
          schema: {
            oneOf: [
              {
                type: 'object',
                required: ['status', 'code', 'expires_at'],
                properties: { status: { type: 'string', enum: ['pending'] }, code: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } },
              },
              {
                type: 'object',
                required: ['status', 'registration_key', 'device_id', 'name'],
                properties: {
                  status: { type: 'string', enum: ['claimed'] },
                  registration_key: { type: 'string' },
                  device_id: { type: 'string' },
                  name: { type: 'string' },
                },
              },
            ],
          },
        },
      },
    },
    ...errors(404),
  },
});
