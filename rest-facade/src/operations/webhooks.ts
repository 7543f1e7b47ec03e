/**
 * /webhooks: endpoints (list, get, create with the secret shown once, change, delete), each one's
 * delivery log, and the actions (rotate the secret, send a test event, redeliver), onto the webhook
 * queries and mutations.
 */
import { createOp, deleteOp, getOp, listOp, mapFields, restOp, updateOp, type FieldMap } from './declare.js';
import { AppError, notFound } from '@pylon/kit';
import { fieldOf, payloadOf } from './shape.js';
import type { ItemOf, RestSchema } from './types.js';
import { answers, arrayOf, byId, created, errors, json, jsonBody, md, noContent, params, ref, route } from './route.js';
import { gql } from './gql.js';

/** REST body property -> WebhookEndpointInput / WebhookEndpointChanges field (both have the same fields). */
const ENDPOINT_FIELDS = {
  url: 'url',
  description: 'description',
  event_types: 'eventTypes',
  device_ids: 'deviceIds',
  device_group_id: 'deviceGroupId',
  tag: 'tag',
  enabled: 'enabled',
} as const satisfies FieldMap;

/** An endpoint as every webhook document selects it (never its secret). */
type EndpointData = ItemOf<'getWebhookEndpoint', 'webhookEndpoints'>;

export const toRestEndpoint = (e: EndpointData): RestSchema<'WebhookEndpoint'> => ({
  id: e.id,
  url: e.url,
  description: e.description,
  event_types: e.eventTypes,
  device_ids: e.deviceIds,
  device_group_id: e.deviceGroupId,
  tag: e.tag,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  consecutive_failures: e.consecutiveFailures,
  previous_secret_expires_at: e.previousSecretExpiresAt,
  created_on: e.createdOn,
  updated_on: e.updatedOn,
});

type DeliveryData = ItemOf<'listWebhookDeliveries', 'webhookDeliveries'>;

export const toRestDelivery = (d: DeliveryData): RestSchema<'WebhookDelivery'> => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_id: d.eventId,
  event_type: d.eventType,
  event_timestamp: d.eventTimestamp,
  // The SDL types it as a String; the identity use case writes only the four values rest.yaml lists.
  status: d.status as RestSchema<'WebhookDelivery'>['status'],
  attempt_count: d.attemptCount,
  next_attempt_at: d.nextAttemptAt,
  attempts: d.attempts.map((a) => ({ at: a.at, status_code: a.statusCode, latency_ms: a.latencyMs, response_excerpt: a.responseExcerpt })),
  created_on: d.createdOn,
});

export const listWebhookEndpoints = route(
  'GET /webhooks',
  {
    tags: ['Webhooks'],
    summary: "Webhook endpoints of the caller's account.",
    description: 'One page (take, page 0-based); secrets are never shown. Policy Webhooks_View.',
    parameters: params('IdQuery', 'Take', 'Page'),
    responses: answers('One page of endpoints (possibly empty).', arrayOf('WebhookEndpoint'), 400, 401, 403, 429, 500, 503),
  },
  listOp('listWebhookEndpoints', {
    document: gql`
      # GET /webhooks: one page of the account's webhook endpoints (never their secrets).
      query listWebhookEndpoints($id: [String!], $limit: Int, $offset: Int) {
        webhookEndpoints(id: $id, limit: $limit, offset: $offset) {
          ...RestWebhookEndpoint
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, ids only, up to 1000.
        total: webhookEndpoints(id: $id, limit: 1000) {
          id
        }
      }
    `,
    root: 'webhookEndpoints',
    count: 'total',
    params: { id: { to: 'id', one: true } },
    toRest: toRestEndpoint,
  }),
);

export const getWebhookEndpoint = route(
  'GET /webhooks/{id}',
  {
    tags: ['Webhooks'],
    summary: 'One webhook endpoint.',
    description: '404 when the account has no endpoint with this id. Policy Webhooks_View.',
    ...byId('The endpoint.', 'WebhookEndpoint', 400, 401, 403, 404, 429, 500, 503),
  },
  getOp('getWebhookEndpoint', {
    document: gql`
      # GET /webhooks/{id}: one webhook endpoint of the account.
      query getWebhookEndpoint($id: String!) {
        webhookEndpoints(id: [$id], limit: 1) {
          ...RestWebhookEndpoint
        }
      }
    `,
    root: 'webhookEndpoints',
    what: 'webhook endpoint',
    toRest: toRestEndpoint,
  }),
);

/** The endpoint with its new secret (created, or rotated), which no later answer shows again. */
function withSecret(payload: { secret: string | null; endpoint: EndpointData | null }, root: string): RestSchema<'WebhookEndpointCreated'> {
  if (payload.secret === null) throw new AppError('INTERNAL', `the gateway answer has no secret at '${root}'`);
  return { ...toRestEndpoint(fieldOf(payload, 'endpoint')), secret: payload.secret };
}

const create = createOp('createWebhookEndpoint', {
  document: gql`
    # POST /webhooks: adds an endpoint; the answer carries the signing secret, shown this once.
    mutation createWebhookEndpoint($input: WebhookEndpointInput!) {
      createWebhookEndpoint(input: $input) {
        ...RestOutcome
        secret
        endpoint {
          ...RestWebhookEndpoint
        }
      }
    }
  `,
  root: 'createWebhookEndpoint',
  record: 'endpoint',
  body: { fields: ENDPOINT_FIELDS },
});
/** 201 with the endpoint and its signing secret (the only answer that ever carries it). */
export const createWebhookEndpoint = route(
  'POST /webhooks',
  {
    tags: ['Webhooks'],
    summary: 'Adds a webhook endpoint.',
    description: md(
      'A public http(s) URL (the media-import SSRF rules: private, loopback and link-local',
      'addresses are refused unless WEBHOOK_ALLOW_LIST names them; redirects are not followed),',
      'the event types it wants (empty: all) and optional filters (device ids, group, tag: ids of',
      "the caller's account). The answer carries `secret` (whsec_...), shown this once. Policy Webhooks_Edit.",
    ),
    requestBody: jsonBody('WebhookEndpointRequest'),
    responses: created('The new endpoint, with its signing secret.', ref('WebhookEndpointCreated'), 400, 401, 403, 429, 500, 503),
  },
  restOp('createWebhookEndpoint', {
    ...create,
    respond: (data) => ({ status: 201, body: withSecret(payloadOf(data, 'createWebhookEndpoint', create.fieldNames), 'createWebhookEndpoint') }),
  }),
);

export const updateWebhookEndpoint = route(
  'PUT /webhooks/{id}',
  {
    tags: ['Webhooks'],
    summary: 'Changes a webhook endpoint.',
    description: 'The properties given change; the others stay. Enabling a disabled endpoint resets its failure count. Policy Webhooks_Edit.',
    parameters: params('IdPath'),
    requestBody: jsonBody('WebhookEndpointChanges'),
    responses: answers('The changed endpoint.', ref('WebhookEndpoint'), 400, 401, 403, 404, 429, 500, 503),
  },
  updateOp('updateWebhookEndpoint', {
    document: gql`
      # PUT /webhooks/{id}: changes the given fields of an endpoint.
      mutation updateWebhookEndpoint($id: String!, $input: WebhookEndpointChanges!) {
        updateWebhookEndpoint(id: $id, input: $input) {
          ...RestOutcome
          endpoint {
            ...RestWebhookEndpoint
          }
        }
      }
    `,
    root: 'updateWebhookEndpoint',
    record: 'endpoint',
    body: { fields: ENDPOINT_FIELDS },
    toRest: toRestEndpoint,
  }),
);

export const deleteWebhookEndpoint = route(
  'DELETE /webhooks/{id}',
  {
    tags: ['Webhooks'],
    summary: 'Deletes a webhook endpoint and its delivery log.',
    description: 'Policy Webhooks_Edit.',
    parameters: params('IdPath'),
    responses: noContent('Deleted.', 400, 401, 403, 404, 429, 500, 503),
  },
  deleteOp('deleteWebhookEndpoint', { root: 'deleteWebhookEndpoint' }),
);

const deliveries = listOp('listWebhookDeliveries', {
  document: gql`
    # GET /webhooks/{id}/deliveries: the endpoint's delivery log, newest first, with every attempt.
    query listWebhookDeliveries($id: String!, $limit: Int, $offset: Int) {
      webhookDeliveries(endpointId: $id, limit: $limit, offset: $offset) {
        ...RestWebhookDelivery
      }
    }
  `,
  root: 'webhookDeliveries',
  toRest: toRestDelivery,
});
/** GET /webhooks/{id}/deliveries: the list with the endpoint's id from the path. */
export const listWebhookDeliveries = route(
  'GET /webhooks/{id}/deliveries',
  {
    tags: ['Webhooks'],
    summary: 'The delivery log of a webhook endpoint.',
    description:
      "Newest first, each event with its attempts (status code, latency, response excerpt). Another account's endpoint id gives an empty list. Policy Webhooks_View.",
    parameters: params('IdPath', 'Take', 'Page'),
    responses: answers('One page of deliveries (possibly empty).', arrayOf('WebhookDelivery'), 400, 401, 403, 429, 500, 503),
  },
  restOp('listWebhookDeliveries', {
    ...deliveries,
    variables: (input) => ({ ...deliveries.variables(input), id: input.params.id }),
    fieldNames: { ...deliveries.fieldNames, id: 'id' },
    accepts: { ...deliveries.accepts, path: ['id'] },
  }),
);

/** GET /webhooks/{id}/deliveries/{deliveryId}: one delivery of the endpoint's log; 404 when the endpoint has no such delivery. */
export const getWebhookDelivery = route(
  'GET /webhooks/{id}/deliveries/{deliveryId}',
  {
    tags: ['Webhooks'],
    summary: 'One delivery of a webhook endpoint.',
    description: "The event with its attempts (status code, latency, response excerpt). Another account's ids answer 404. Policy Webhooks_View.",
    parameters: [
      ...params('IdPath'),
      { name: 'deliveryId', in: 'path', required: true, description: 'Identifier of the delivery.', schema: { type: 'string', minLength: 1, maxLength: 200 } },
    ],
    responses: answers('The delivery.', ref('WebhookDelivery'), 400, 401, 403, 404, 429, 500, 503),
  },
  restOp('getWebhookDelivery', {
    document: gql`
      query getWebhookDelivery($endpointId: String!, $id: String!) {
        webhookDelivery(endpointId: $endpointId, id: $id) {
          ...RestWebhookDelivery
        }
      }
    `,
    variables: ({ params }) => ({ endpointId: params.id, id: params.deliveryId }),
    respond(data, { params }) {
      if (!data.webhookDelivery) throw notFound('webhook delivery', String(params.deliveryId));
      return { body: toRestDelivery(data.webhookDelivery) };
    },
    fieldNames: { endpointId: 'id', id: 'deliveryId' },
    accepts: { path: ['id', 'deliveryId'] },
    nullableRoots: ['webhookDelivery'],
  }),
);

/** The endpoint with its new signing secret (rotate: with create, the only answers that carry it). */
const rotate = createOp('rotateWebhookEndpointSecret', {
  document: gql`
    # POST /webhooks/{id}/rotate-secret: a new signing secret (shown this once); the previous one signs beside it for the overlap.
    mutation rotateWebhookEndpointSecret($id: String!, $overlapSeconds: Int) {
      rotateWebhookEndpointSecret(id: $id, overlapSeconds: $overlapSeconds) {
        ...RestOutcome
        secret
        endpoint {
          ...RestWebhookEndpoint
        }
      }
    }
  `,
  root: 'rotateWebhookEndpointSecret',
  record: 'endpoint',
  param: 'id',
  flat: true,
  status: 200,
  body: { fields: { overlap_seconds: 'overlapSeconds' } },
});
/** POST /webhooks/{id}/rotate-secret: 200 with the endpoint and its new secret; the previous one signs beside it for overlap_seconds. */
export const rotateWebhookEndpointSecret = route(
  'POST /webhooks/{id}/rotate-secret',
  {
    tags: ['Webhooks'],
    summary: 'Gives a webhook endpoint a new signing secret.',
    description: md(
      'The answer carries the new `secret` (whsec_...), shown this once. The previous secret keeps',
      'signing beside it (a second `v1,` signature in webhook-signature) for `overlap_seconds`',
      '(default 86400, at most 604800; 0 ends it at once), so receivers can switch without losing',
      'an event. 404 when the account has no endpoint with this id. Policy Webhooks_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: { content: json(ref('WebhookSecretRotation')) },
    responses: answers('The endpoint, with its new signing secret.', ref('WebhookEndpointCreated'), 400, 401, 403, 404, 429, 500, 503),
  },
  restOp('rotateWebhookEndpointSecret', {
    ...rotate,
    respond: (data) => ({ status: 200, body: withSecret(payloadOf(data, 'rotateWebhookEndpointSecret', rotate.fieldNames), 'rotateWebhookEndpointSecret') }),
  }),
);

/** POST /webhooks/{id}/test: 202 with the queued delivery of a webhook.test event to this endpoint alone. */
export const sendTestWebhookEvent = route(
  'POST /webhooks/{id}/test',
  {
    tags: ['Webhooks'],
    summary: 'Sends a webhook.test event to this endpoint alone.',
    description:
      'Queues the event for delivery (signed and retried like any other); follow it in the delivery log. 404 when the account has no endpoint with this id. Policy Webhooks_Edit.',
    parameters: params('IdPath'),
    responses: {
      '202': { description: 'The queued delivery.', content: json(ref('WebhookDelivery')) },
      ...errors(400, 401, 403, 404, 429, 500, 503),
    },
  },
  createOp('sendTestWebhookEvent', {
    root: 'sendTestWebhookEvent',
    record: 'delivery',
    param: 'id',
    flat: true,
    status: 202,
    body: { fields: {} },
    toRest: toRestDelivery,
  }),
);

const REDELIVER_FIELDS = { event_id: 'eventId', from: 'from', to: 'to' } as const satisfies FieldMap;
const redeliverNames = { eventId: 'event_id', from: 'from', to: 'to', id: 'id' };
/** POST /webhooks/{id}/redeliver: one event (event_id) or a time range (from/to), queued again; 200 with the count. */
export const redeliverWebhookEvents = route(
  'POST /webhooks/{id}/redeliver',
  {
    tags: ['Webhooks'],
    summary: 'Delivers events to this endpoint again.',
    description: md(
      "One event (`event_id`; 404 when the endpoint's log has no delivery of it) or the endpoint's",
      'deliveries whose events happened in [`from`, `to`) (ISO 8601; either may be left out, at',
      'most 1000 deliveries) are queued again, due at once, with the same webhook-id (receivers',
      'deduplicate by it); earlier attempts stay in the log. Policy Webhooks_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: jsonBody('WebhookRedelivery'),
    responses: answers('How many deliveries were queued again.', ref('WebhookRedeliveryResult'), 400, 401, 403, 404, 429, 500, 503),
  },
  restOp('redeliverWebhookEvents', {
    document: gql`
      # POST /webhooks/{id}/redeliver: one event, or the deliveries of a time range, queued again.
      mutation redeliverWebhookEvents($id: String!, $eventId: String, $from: String, $to: String) {
        redeliverWebhookEvents(id: $id, eventId: $eventId, from: $from, to: $to) {
          ...RestOutcome
          count
        }
      }
    `,
    variables: (input) => ({ id: input.params.id, ...mapFields(input.body, REDELIVER_FIELDS, input) }),
    respond(data) {
      const payload = payloadOf(data, 'redeliverWebhookEvents', redeliverNames);
      return { body: { count: payload.count } };
    },
    fieldNames: redeliverNames,
    accepts: { path: ['id'], body: Object.keys(REDELIVER_FIELDS) },
  }),
);
