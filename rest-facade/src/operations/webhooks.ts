/**
 * /webhooks: endpoints (list, get, create with the secret shown once, change, delete), each one's
 * delivery log, and the actions (rotate the secret, send a test event, redeliver), onto the webhook
 * queries and mutations.
 */
import { createOp, deleteOp, getOp, listOp, mapFields, restOp, updateOp, type FieldMap } from './declare.js';
import { AppError } from '@pylon/kit';
import { fieldOf, payloadOf } from './shape.js';
import type { ItemOf, RestSchema } from './types.js';

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

export const listWebhookEndpoints = listOp('listWebhookEndpoints', {
  root: 'webhookEndpoints',
  count: 'total',
  params: { id: { to: 'id', one: true } },
  toRest: toRestEndpoint,
});

export const getWebhookEndpoint = getOp('getWebhookEndpoint', { root: 'webhookEndpoints', what: 'webhook endpoint', toRest: toRestEndpoint });

const create = createOp('createWebhookEndpoint', { root: 'createWebhookEndpoint', record: 'endpoint', body: { fields: ENDPOINT_FIELDS } });
/** 201 with the endpoint and its signing secret (the only answer that ever carries it). */
export const createWebhookEndpoint = restOp('createWebhookEndpoint', {
  ...create,
  respond(data) {
    const payload = payloadOf(data, 'createWebhookEndpoint', create.fieldNames);
    if (payload.secret === null) throw new AppError('INTERNAL', "the gateway answer has no secret at 'createWebhookEndpoint'");
    const body: RestSchema<'WebhookEndpointCreated'> = { ...toRestEndpoint(fieldOf(payload, 'endpoint')), secret: payload.secret };
    return { status: 201, body };
  },
});

export const updateWebhookEndpoint = updateOp('updateWebhookEndpoint', {
  root: 'updateWebhookEndpoint',
  record: 'endpoint',
  body: { fields: ENDPOINT_FIELDS },
  toRest: toRestEndpoint,
});

export const deleteWebhookEndpoint = deleteOp('deleteWebhookEndpoint', { root: 'deleteWebhookEndpoint' });

const deliveries = listOp('listWebhookDeliveries', { root: 'webhookDeliveries', toRest: toRestDelivery });
/** GET /webhooks/{id}/deliveries: the list with the endpoint's id from the path. */
export const listWebhookDeliveries = restOp('listWebhookDeliveries', {
  ...deliveries,
  variables: (input) => ({ ...deliveries.variables(input), id: input.params.id }),
  fieldNames: { ...deliveries.fieldNames, id: 'id' },
  accepts: { ...deliveries.accepts, path: ['id'] },
});

/** The endpoint with its new signing secret (rotate: with create, the only answers that carry it). */
const rotate = createOp('rotateWebhookEndpointSecret', {
  root: 'rotateWebhookEndpointSecret',
  record: 'endpoint',
  param: 'id',
  flat: true,
  status: 200,
  body: { fields: { overlap_seconds: 'overlapSeconds' } },
});
/** POST /webhooks/{id}/rotate-secret: 200 with the endpoint and its new secret; the previous one signs beside it for overlap_seconds. */
export const rotateWebhookEndpointSecret = restOp('rotateWebhookEndpointSecret', {
  ...rotate,
  respond(data) {
    const payload = payloadOf(data, 'rotateWebhookEndpointSecret', rotate.fieldNames);
    if (payload.secret === null) throw new AppError('INTERNAL', "the gateway answer has no secret at 'rotateWebhookEndpointSecret'");
    const body: RestSchema<'WebhookEndpointCreated'> = { ...toRestEndpoint(fieldOf(payload, 'endpoint')), secret: payload.secret };
    return { status: 200, body };
  },
});

/** POST /webhooks/{id}/test: 202 with the queued delivery of a webhook.test event to this endpoint alone. */
export const sendTestWebhookEvent = createOp('sendTestWebhookEvent', {
  root: 'sendTestWebhookEvent',
  record: 'delivery',
  param: 'id',
  flat: true,
  status: 202,
  body: { fields: {} },
  toRest: toRestDelivery,
});

const REDELIVER_FIELDS = { event_id: 'eventId', from: 'from', to: 'to' } as const satisfies FieldMap;
const redeliverNames = { eventId: 'event_id', from: 'from', to: 'to', id: 'id' };
/** POST /webhooks/{id}/redeliver: one event (event_id) or a time range (from/to), queued again; 200 with the count. */
export const redeliverWebhookEvents = restOp('redeliverWebhookEvents', {
  variables: (input) => ({ id: input.params.id, ...mapFields(input.body, REDELIVER_FIELDS, input) }),
  respond(data) {
    const payload = payloadOf(data, 'redeliverWebhookEvents', redeliverNames);
    return { body: { count: payload.count } };
  },
  fieldNames: redeliverNames,
  accepts: { path: ['id'], body: Object.keys(REDELIVER_FIELDS) },
});
