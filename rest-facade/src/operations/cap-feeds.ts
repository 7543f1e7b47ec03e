/**
 * /cap-feeds: CAP 1.2 alert feeds that start and end emergency overrides (list, get, create,
 * change, delete, poll now) onto the capFeed queries and mutations. Bodies are snake_case like
 * every REST body; a feed's target has the override target's shape.
 */
import { byIdGetOp, deleteOp, restOp } from './declare.js';
import { gql } from './gql.js';
import { toRestTarget, targetInput } from './overrides.js';
import { answers, arrayOf, byId, created, jsonBody, md, noContent, params, ref, route } from './route.js';
import { fieldOf, listOf, objectBody, payloadOf } from './shape.js';
import type { ItemOf, RestSchema, SomeInputOf } from './types.js';

type CapFeedData = ItemOf<'getCapFeed', 'capFeed'>;
type CapAlertData = CapFeedData['alerts'][number];

const toRestAlert = (a: CapAlertData): RestSchema<'CapAlert'> => ({
  identifier: a.identifier,
  sender: a.sender,
  sent: a.sent,
  msg_type: a.msgType,
  event: a.event,
  severity: a.severity,
  headline: a.headline,
  outcome: a.outcome,
  detail: a.detail ?? null,
  override_id: a.override?.id ?? null,
  received_at: a.receivedAt,
});

export const toRestCapFeed = (f: CapFeedData): RestSchema<'CapFeed'> => ({
  id: f.id,
  name: f.name,
  url: f.url,
  enabled: f.enabled,
  severities: f.severities,
  events: f.events,
  target: f.target ? toRestTarget(f.target) : null,
  poll_seconds: f.pollSeconds,
  default_duration_minutes: f.defaultDurationMinutes,
  configured_by: f.configuredBy,
  last_polled_at: f.lastPolledAt ?? null,
  last_error: f.lastError ?? null,
  created_on: f.createdOn,
  alerts: f.alerts.map(toRestAlert),
});

/** REST body -> CapFeedInput / CapFeedUpdateInput (shape checked by rest.yaml's schema first; values by the use case). */
function capFeedInput(raw: unknown): SomeInputOf<'createCapFeed'> & SomeInputOf<'updateCapFeed'> {
  const body = objectBody(raw);
  const input: SomeInputOf<'createCapFeed'> & SomeInputOf<'updateCapFeed'> = {
    name: body.name,
    url: body.url,
    enabled: body.enabled,
    severities: body.severities,
    events: body.events,
    target: targetInput(body.target),
    pollSeconds: body.poll_seconds,
    defaultDurationMinutes: body.default_duration_minutes,
  };
  // Absent fields stay absent (a change touches only what it names).
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

const TAGS = ['Overrides'];
const NAMES = { input: 'body', id: 'id', pollSeconds: 'poll_seconds', defaultDurationMinutes: 'default_duration_minutes' };
const BODY_FIELDS = ['name', 'url', 'enabled', 'severities', 'events', 'target', 'poll_seconds', 'default_duration_minutes'];

export const listCapFeeds = route(
  'GET /cap-feeds',
  {
    tags: TAGS,
    summary: "The account's CAP alert feeds.",
    description: 'At most 20, by name, each with the alerts it read (latest first). Policy Schedules_View.',
    responses: answers('The feeds (possibly none).', arrayOf('CapFeed'), 401, 403, 429, 500, 503),
  },
  restOp('listCapFeeds', {
    document: gql`
      # GET /cap-feeds: the account's CAP alert feeds with the alerts each read.
      query listCapFeeds {
        capFeeds {
          ...RestCapFeed
        }
      }
    `,
    variables: () => ({}),
    respond: (data) => ({ body: listOf(data, 'capFeeds').map(toRestCapFeed) }),
    fieldNames: {},
    accepts: {},
  }),
);

export const getCapFeed = route(
  'GET /cap-feeds/{id}',
  {
    tags: TAGS,
    summary: 'One CAP alert feed with the alerts it read.',
    description:
      'Each alert with its outcome (STARTED with its override, NO_SCREENS, FILTERED, ...). 404 when the account has no feed with this id. Policy Schedules_View.',
    ...byId('The feed.', 'CapFeed', 400, 401, 403, 404, 429, 500, 503),
  },
  byIdGetOp('getCapFeed', { from: 'nullable', root: 'capFeed', fragment: 'RestCapFeed', what: 'CAP feed', toRest: toRestCapFeed }),
);

export const createCapFeed = route(
  'POST /cap-feeds',
  {
    tags: TAGS,
    summary: 'Adds a CAP 1.2 alert feed that starts and ends emergency overrides.',
    description: md(
      'A CAP alert, or an Atom/RSS feed of them, polled at once and then every `poll_seconds`: its Actual alerts of the',
      "chosen `severities` (default Extreme and Severe) start overrides on the feed's screens inside their areas",
      '(polygons and circles by screen location, geocodes by `<valueName>:<value>` tags) until they expire; an Update or',
      "Cancel ends the overrides of the alerts it references. The feed acts with the caller's policies. Private and",
      'loopback addresses only when CAP_FEED_ALLOW_LIST names them. Policy Overrides_Edit.',
    ),
    requestBody: jsonBody('CapFeedRequest'),
    responses: created('The feed.', ref('CapFeed'), 400, 401, 403, 422, 429, 500, 503),
  },
  restOp('createCapFeed', {
    document: { root: 'createCapFeed', record: 'capFeed' },
    variables: (input) => ({ input: capFeedInput(input.body) }),
    respond: (data) => ({ status: 201, body: toRestCapFeed(fieldOf(payloadOf(data, 'createCapFeed', NAMES), 'capFeed')) }),
    fieldNames: NAMES,
    accepts: { body: BODY_FIELDS },
  }),
);

export const updateCapFeed = route(
  'PUT /cap-feeds/{id}',
  {
    tags: TAGS,
    summary: 'Changes a CAP alert feed.',
    description:
      "Only the given fields change; the feed then acts with the caller's policies. 404 when the account has no feed with this id. Policy Overrides_Edit.",
    parameters: params('IdPath'),
    requestBody: jsonBody('CapFeedChanges'),
    responses: answers('The changed feed.', ref('CapFeed'), 400, 401, 403, 404, 429, 500, 503),
  },
  restOp('updateCapFeed', {
    document: { root: 'updateCapFeed', record: 'capFeed' },
    variables: (input) => ({ id: input.params.id, input: capFeedInput(input.body) }),
    respond: (data) => ({ body: toRestCapFeed(fieldOf(payloadOf(data, 'updateCapFeed', NAMES), 'capFeed')) }),
    fieldNames: NAMES,
    accepts: { path: ['id'], body: BODY_FIELDS },
  }),
);

export const deleteCapFeed = route(
  'DELETE /cap-feeds/{id}',
  {
    tags: TAGS,
    summary: 'Deletes a CAP alert feed.',
    description: 'Its record of alerts goes with it; the overrides it started stay (cancel them as any other). Policy Overrides_Edit.',
    parameters: params('IdPath'),
    responses: noContent('Deleted.', 400, 401, 403, 404, 429, 500, 503),
  },
  deleteOp('deleteCapFeed', { root: 'deleteCapFeed' }),
);

export const pollCapFeed = route(
  'POST /cap-feeds/{id}/poll',
  {
    tags: TAGS,
    summary: 'Reads a CAP alert feed now.',
    description: md(
      'Enabled or not, and acts on the alerts it has not seen: `handled` says what each did. A feed that cannot be read',
      'answers 200 with `feed_error` saying why (the address refused, its HTTP status, not CAP). Policy Overrides_Edit.',
    ),
    ...byId('What the poll read and did.', 'CapFeedPollReport', 400, 401, 403, 404, 429, 500, 503),
  },
  restOp('pollCapFeed', {
    document: gql`
      # POST /cap-feeds/{id}/poll: reads a CAP alert feed now and acts on what is new.
      mutation pollCapFeed($id: ID!) {
        pollCapFeed(id: $id) {
          ...RestOutcome
          alertsRead
          feedError
          handled {
            ...RestCapAlert
          }
          capFeed {
            ...RestCapFeed
          }
        }
      }
    `,
    variables: (input) => ({ id: input.params.id }),
    respond(data) {
      const payload = payloadOf(data, 'pollCapFeed', NAMES);
      return {
        body: {
          alerts_read: payload.alertsRead ?? 0,
          feed_error: payload.feedError ?? null,
          handled: (payload.handled ?? []).map(toRestAlert),
          feed: toRestCapFeed(fieldOf(payload, 'capFeed')),
        },
      };
    },
    fieldNames: NAMES,
    accepts: { path: ['id'] },
  }),
);
