/**
 * /webhooks: endpoints (list, get, create with the secret shown once, change, delete), each one's
 * delivery log, and the actions (rotate the secret, send a test event, redeliver), onto the webhook
 * queries and mutations.
 */
import { payloadAt } from '@pylon/kit';
import { createOp, deleteOp, getOp, listOp, mapFields, updateOp, type FieldMap } from './declare.js';
import type { RestOperation } from './types.js';
import { isRecord } from './shape.js';

const ENDPOINT_FIELDS: FieldMap = {
  url: 'url',
  description: 'description',
  event_types: 'eventTypes',
  device_ids: 'deviceIds',
  device_group_id: 'deviceGroupId',
  tag: 'tag',
  enabled: 'enabled',
};

export const listWebhookEndpoints = listOp({ root: 'webhookEndpoints', count: 'total', params: { id: { to: 'id', one: true } } });

export const getWebhookEndpoint = getOp({ root: 'webhookEndpoints', what: 'webhook endpoint' });

/** The endpoint answered with the payload's signing secret (create and rotate: the only answers that carry it). */
function withSecret(op: RestOperation, root: string): RestOperation {
  return {
    ...op,
    respond(data, input) {
      const answer = op.respond(data, input);
      const payload = data[root];
      return { ...answer, body: { ...(answer.body as Record<string, unknown>), secret: isRecord(payload) ? payload.secret : null } };
    },
  };
}

/** 201 with the endpoint and its signing secret. */
export const createWebhookEndpoint = withSecret(
  createOp({ root: 'createWebhookEndpoint', record: 'endpoint', body: { fields: ENDPOINT_FIELDS } }),
  'createWebhookEndpoint',
);

export const updateWebhookEndpoint = updateOp({ root: 'updateWebhookEndpoint', record: 'endpoint', body: { fields: ENDPOINT_FIELDS } });

export const deleteWebhookEndpoint = deleteOp({ root: 'deleteWebhookEndpoint' });

const deliveries = listOp({ root: 'webhookDeliveries' });
/** GET /webhooks/{id}/deliveries: the list with the endpoint's id from the path. */
export const listWebhookDeliveries: RestOperation = {
  ...deliveries,
  variables: (input) => ({ ...deliveries.variables(input), id: input.params.id }),
  fieldNames: { ...deliveries.fieldNames, id: 'id' },
  accepts: { ...deliveries.accepts, path: ['id'] },
};

/** POST /webhooks/{id}/rotate-secret: 200 with the endpoint and its new secret; the previous one signs beside it for overlap_seconds. */
export const rotateWebhookEndpointSecret = withSecret(
  createOp({
    root: 'rotateWebhookEndpointSecret',
    record: 'endpoint',
    param: 'id',
    flat: true,
    status: 200,
    body: { fields: { overlap_seconds: 'overlapSeconds' } },
  }),
  'rotateWebhookEndpointSecret',
);

/** POST /webhooks/{id}/test: 202 with the queued delivery of a webhook.test event to this endpoint alone. */
export const sendTestWebhookEvent = createOp({ root: 'sendTestWebhookEvent', record: 'delivery', param: 'id', flat: true, status: 202, body: { fields: {} } });

const REDELIVER_FIELDS: FieldMap = { event_id: 'eventId', from: 'from', to: 'to' };
const redeliverNames = { eventId: 'event_id', from: 'from', to: 'to', id: 'id' };
/** POST /webhooks/{id}/redeliver: one event (event_id) or a time range (from/to), queued again; 200 with the count. */
export const redeliverWebhookEvents: RestOperation = {
  variables: (input) => ({ id: input.params.id, ...mapFields(input.body, REDELIVER_FIELDS, input) }),
  respond(data) {
    const payload = payloadAt(data, 'redeliverWebhookEvents', redeliverNames);
    return { body: { count: typeof payload.count === 'number' ? payload.count : 0 } };
  },
  fieldNames: redeliverNames,
  accepts: { path: ['id'], body: Object.keys(REDELIVER_FIELDS) },
};
