/**
 * /overrides: emergency overrides (list, get, start, cancel) onto the override queries and
 * mutations. The body's nested content and target are snake_case like every REST body.
 */
import { byIdGetOp, restOp } from './declare.js';
import { gql } from './gql.js';
import { fieldOf, isRecord, listOf, objectBody, payloadOf } from './shape.js';
import type { ItemOf, RestSchema, SomeInputOf } from './types.js';
import { answers, arrayOf, byId, created, jsonBody, md, params, ref, route } from './route.js';

type OverrideData = ItemOf<'getOverride', 'override'>;

/** An override's (or a CAP feed's) target as REST bodies write it. */
export const toRestTarget = (t: OverrideData['target']): NonNullable<RestSchema<'CapFeed'>['target']> => ({
  all: t.all,
  tags: t.tags,
  group_ids: t.groupIds,
  device_ids: t.deviceIds,
  radius: t.radius ? { latitude: t.radius.latitude, longitude: t.radius.longitude, radius_km: t.radius.radiusKm } : null,
});

/** A REST target (snake_case) as OverrideTargetInput; anything else is passed on for the schema to refuse. */
export function targetInput(t: unknown): unknown {
  if (!isRecord(t)) return t;
  const r = isRecord(t.radius) ? t.radius : null;
  return {
    all: t.all,
    tags: t.tags,
    groupIds: t.group_ids,
    deviceIds: t.device_ids,
    radius: r ? { latitude: r.latitude, longitude: r.longitude, radiusKm: r.radius_km } : t.radius,
  };
}

export const toRestOverride = (o: OverrideData): RestSchema<'Override'> => ({
  id: o.id,
  name: o.name,
  state: o.state,
  content: {
    type: o.content.type,
    media_id: o.content.media?.id ?? null,
    playlist_id: o.content.playlist?.id ?? null,
    text: o.content.text ?? null,
    text_color: o.content.textColor ?? null,
    background_color: o.content.backgroundColor ?? null,
  },
  target: toRestTarget(o.target),
  starts_at: o.startsAt,
  ends_at: o.endsAt ?? null,
  cancelled_at: o.cancelledAt ?? null,
  started_by: o.startedBy,
  created_on: o.createdOn,
  screens: o.screens.map((s) => ({ device_id: s.device.id, state: s.state, shown_at: s.shownAt ?? null, stopped_at: s.stoppedAt ?? null })),
  screen_counts: o.screenCounts,
});

/** REST body -> OverrideInput (shape checked by rest.yaml's schema first; values by the use case). */
function overrideInput(raw: unknown): SomeInputOf<'startOverride'> {
  const body = objectBody(raw);
  const c = isRecord(body.content) ? body.content : {};
  return {
    name: body.name,
    content: { type: c.type, mediaId: c.media_id, playlistId: c.playlist_id, text: c.text, textColor: c.text_color, backgroundColor: c.background_color },
    target: targetInput(isRecord(body.target) ? body.target : {}),
    startsAt: body.starts_at,
    endsAt: body.ends_at,
  };
}

const TAGS = ['Overrides'];
const NAMES = { input: 'body', id: 'id', openOnly: 'open_only', limit: 'take' };

export const listOverrides = route(
  'GET /overrides',
  {
    tags: TAGS,
    summary: "Emergency overrides of the caller's account.",
    description: md(
      'The latest start first (at most `take`, default 50, at most 200), each with its screens and',
      'their states. `open_only`: only those not yet ended or cancelled. Policy Schedules_View.',
    ),
    parameters: params('OpenOnly', 'Take'),
    responses: answers('The overrides (possibly none).', arrayOf('Override'), 400, 401, 403, 429, 500, 503),
  },
  restOp('listOverrides', {
    document: gql`
      # GET /overrides: the account's emergency overrides, the latest start first, with their screens' states.
      query listOverrides($openOnly: Boolean, $limit: Int) {
        overrides(openOnly: $openOnly, limit: $limit) {
          ...RestOverride
        }
      }
    `,
    variables: (input) => ({ openOnly: input.query.open_only, limit: input.query.take }),
    respond: (data) => ({ body: listOf(data, 'overrides').map(toRestOverride) }),
    fieldNames: NAMES,
    accepts: { query: ['open_only', 'take'] },
  }),
);

export const getOverride = route(
  'GET /overrides/{id}',
  {
    tags: TAGS,
    summary: 'One emergency override with its screens.',
    description:
      'Each screen: PENDING, SHOWING, ENDED or UNREACHABLE, with its acknowledgements. 404 when the account has no override with this id. Policy Schedules_View.',
    ...byId('The override.', 'Override', 400, 401, 403, 404, 429, 500, 503),
  },
  byIdGetOp('getOverride', { from: 'nullable', root: 'override', fragment: 'RestOverride', what: 'override', toRest: toRestOverride }),
);

export const startOverride = route(
  'POST /overrides',
  {
    tags: TAGS,
    summary: 'Starts an emergency override.',
    description: md(
      'Its content (a media item, a playlist or a full-screen message) shows over every schedule on',
      'the targeted screens (all, tags, groups with their subgroups, device ids, a radius around a',
      'location: any of them) from `starts_at` (default now) until `ends_at` or until cancelled.',
      "Every id must be the caller's. Policy Overrides_Edit (not implied by Schedules_Edit).",
    ),
    requestBody: jsonBody('OverrideRequest'),
    responses: created('The override, with its screens (pending until they acknowledge).', ref('Override'), 400, 401, 403, 429, 500, 503),
  },
  restOp('startOverride', {
    document: { root: 'startOverride', record: 'override' },
    variables: (input) => ({ input: overrideInput(input.body) }),
    respond: (data) => ({ status: 201, body: toRestOverride(fieldOf(payloadOf(data, 'startOverride', NAMES), 'override')) }),
    fieldNames: NAMES,
    accepts: { body: ['name', 'content', 'target', 'starts_at', 'ends_at'] },
  }),
);

export const cancelOverride = route(
  'POST /overrides/{id}/cancel',
  {
    tags: TAGS,
    summary: 'Cancels an emergency override.',
    description: md(
      'Every reachable screen stops showing it at once (its long-poll wakes); screens acknowledge the stop.',
      '404 when the account has no override with this id; 422 when it already ended. Policy Overrides_Edit.',
    ),
    ...byId('The cancelled override.', 'Override', 400, 401, 403, 404, 422, 429, 500, 503),
  },
  restOp('cancelOverride', {
    document: { root: 'cancelOverride', record: 'override' },
    variables: (input) => ({ id: input.params.id }),
    respond: (data) => ({ body: toRestOverride(fieldOf(payloadOf(data, 'cancelOverride', NAMES), 'override')) }),
    fieldNames: NAMES,
    accepts: { path: ['id'] },
  }),
);
