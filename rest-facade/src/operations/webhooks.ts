/** /webhooks: endpoints (list, get, create with the secret shown once, change, delete) and each one's delivery log, onto the webhook queries and mutations. */
import { createOp, deleteOp, getOp, listOp, updateOp, type FieldMap } from './declare.js';
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

const create = createOp({ root: 'createWebhookEndpoint', record: 'endpoint', body: { fields: ENDPOINT_FIELDS } });
/** 201 with the endpoint and its signing secret (the only answer that ever carries it). */
export const createWebhookEndpoint: RestOperation = {
  ...create,
  respond(data, input) {
    const answer = create.respond(data, input);
    const payload = data.createWebhookEndpoint;
    return { ...answer, body: { ...(answer.body as Record<string, unknown>), secret: isRecord(payload) ? payload.secret : null } };
  },
};

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
