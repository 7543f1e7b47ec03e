/** GraphQL of webhook endpoints and their delivery log (identity subgraph); every field guarded through kit's operation rules. */
import { mutationPayload, resolveLimit } from '@pylon/kit';
import type { Resolvers, WebhookDelivery as WebhookDeliveryView, WebhookEndpoint as WebhookEndpointView } from '../../shared/resolvers.generated.js';
import { createEndpoint, deleteEndpoint, redeliver, rotateSecret, sendTestEvent, updateEndpoint, type WebhookDeps } from './manage-webhooks.js';
import type { WebhookDelivery, WebhookEndpoint } from './webhook.repository.js';

const OFFSET_MAX = { default: 0, max: 10_000_000 };

/** A list field's page and filters (limit, offset, where, order) as the repository takes them. */
const pageOf = (a: { limit?: number | null; offset?: number | null; where?: unknown; order?: unknown }) => ({
  limit: resolveLimit(a.limit),
  skip: resolveLimit(a.offset, OFFSET_MAX, 'offset'),
  where: a.where ?? undefined,
  order: a.order ?? undefined,
});

/** What the API shows of an endpoint: never a secret. */
export const endpointView = (e: WebhookEndpoint): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  description: e.description,
  eventTypes: e.eventTypes,
  deviceIds: e.deviceIds,
  deviceGroupId: e.deviceGroupId,
  tag: e.tag,
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  consecutiveFailures: e.consecutiveFailures,
  previousSecretExpiresAt: e.secrets[1]?.expiresAt ?? null,
  createdOn: e.createdAt,
  updatedOn: e.updatedAt,
});

export const deliveryView = (d: WebhookDelivery): WebhookDeliveryView => ({
  id: d.id,
  endpointId: d.endpointId,
  eventId: d.eventId,
  eventType: d.eventType,
  eventTimestamp: d.eventTimestamp,
  status: d.status,
  attemptCount: d.attempts.length,
  nextAttemptAt: d.nextAttemptAt,
  attempts: d.attempts,
  createdOn: d.createdAt,
});

export function webhookResolvers(deps: WebhookDeps): Resolvers {
  return {
    Query: {
      webhookEndpoints: async (_, a, ctx) => {
        const found = await deps.repo.listEndpoints(ctx.principal.accountId, { ids: a.id ?? null, ...pageOf(a) });
        return found.map(endpointView);
      },
      webhookDeliveries: async (_, a, ctx) => {
        // Another account's endpoint id matches nothing here (the log is read in the caller's account).
        const found = await deps.repo.deliveriesOf(ctx.principal.accountId, a.endpointId, pageOf(a));
        return found.map(deliveryView);
      },
      webhookDelivery: async (_, a, ctx) => {
        // Read in the caller's account; a delivery of another endpoint is not this endpoint's.
        const found = await deps.repo.findDelivery(ctx.principal.accountId, a.id);
        return found && found.endpointId === a.endpointId ? deliveryView(found) : null;
      },
    },
    Mutation: {
      createWebhookEndpoint: (_, a, ctx) => {
        return mutationPayload(async () => {
          const { endpoint, secret } = await createEndpoint(deps, ctx.principal.accountId, a.input);
          return { endpoint: endpointView(endpoint), secret };
        });
      },
      updateWebhookEndpoint: (_, a, ctx) =>
        mutationPayload(async () => ({ endpoint: endpointView(await updateEndpoint(deps, ctx.principal.accountId, a.id, a.input)) })),
      deleteWebhookEndpoint: (_, a, ctx) => mutationPayload(() => deleteEndpoint(deps, ctx.principal.accountId, a.id)),
      rotateWebhookEndpointSecret: (_, a, ctx) => {
        return mutationPayload(async () => {
          const { endpoint, secret } = await rotateSecret(deps, ctx.principal.accountId, a.id, a.overlapSeconds);
          return { endpoint: endpointView(endpoint), secret };
        });
      },
      sendTestWebhookEvent: (_, a, ctx) => mutationPayload(async () => ({ delivery: deliveryView(await sendTestEvent(deps, ctx.principal.accountId, a.id)) })),
      redeliverWebhookEvents: (_, a, ctx) => {
        return mutationPayload(async () => ({
          count: await redeliver(deps, ctx.principal.accountId, a.id, { eventId: a.eventId ?? null, from: a.from ?? null, to: a.to ?? null }),
        }));
      },
    },
  };
}
