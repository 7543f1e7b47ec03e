/**
 * Webhook endpoints of an account: create (secret shown once), change, delete, rotate the secret
 * with an overlap, queue a test event, redeliver. Every id is looked up in the caller's account.
 *
 * Limits: 20 endpoints per account, 100 device ids per filter, 1,000 deliveries per redelivery.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, isPushEventType, notFound, parseInput, parseOutboundUrl, pushEvent, type PushEvent } from '@pylon/kit';
import type { WebhookEndpointRecord } from '../../domain/records.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookRepository } from './webhook.repository.js';

export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
export const MAX_REDELIVER = 1000;
export const DEFAULT_OVERLAP_SECONDS = 86_400;
export const MAX_OVERLAP_SECONDS = 7 * 86_400;

/** Standard Webhooks secret: whsec_ + base64 of 32 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const eventTypes = z
  .array(z.string().max(100))
  .max(50)
  .refine((ts) => ts.every(isPushEventType), { message: 'eventTypes names a type the catalogue does not have' });
const fields = {
  url: z.string().max(2048),
  description: z.string().max(500).nullable().optional(),
  eventTypes: eventTypes.nullable().optional(),
  deviceIds: z.array(z.string().min(1).max(100)).max(100).nullable().optional(),
  deviceGroupId: z.string().min(1).max(100).nullable().optional(),
  tag: z.string().min(1).max(100).nullable().optional(),
  enabled: z.boolean().nullable().optional(),
};
const createSchema = z.object(fields).strict();
const changesSchema = z.object({ ...fields, url: fields.url.nullable().optional() }).strict();

/** Which device and group ids a filter may name: the caller's account's (the devices subgraph answers). */
export interface WebhookDeviceDirectory {
  existingDevices(accountId: string, ids: readonly string[]): Promise<Set<string>>;
  groupExists(accountId: string, groupId: string): Promise<boolean>;
}

export interface WebhookDeps {
  repo: WebhookRepository;
  now: () => number;
  /** Without it (the identity process alone) filter ids are kept unchecked: they can only ever match the account's own events. */
  devices?: WebhookDeviceDirectory;
}

/** Filter ids must be the caller's account's (another account's id is refused like an unknown one). */
async function checkFilters(deps: WebhookDeps, tenant: string, f: { deviceIds?: string[] | null; deviceGroupId?: string | null }): Promise<void> {
  if (!deps.devices) return;
  if (f.deviceIds?.length) {
    const known = await deps.devices.existingDevices(tenant, f.deviceIds);
    const unknown = f.deviceIds.find((id) => !known.has(id));
    if (unknown !== undefined) throw new AppError('BAD_USER_INPUT', `device '${unknown.slice(0, 100)}' was not found`, { field: 'deviceIds' });
  }
  if (f.deviceGroupId && !(await deps.devices.groupExists(tenant, f.deviceGroupId)))
    throw new AppError('BAD_USER_INPUT', `device group '${f.deviceGroupId.slice(0, 100)}' was not found`, { field: 'deviceGroupId' });
}

const checkedUrl = (raw: string): string => parseOutboundUrl(raw, 'url').href;

export async function createEndpoint(deps: WebhookDeps, tenant: string, input: unknown): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const i = parseInput(createSchema, input);
  const url = checkedUrl(i.url);
  await checkFilters(deps, tenant, i);
  if ((await deps.repo.listEndpoints(tenant, { limit: MAX_ENDPOINTS_PER_ACCOUNT, skip: 0 })).length >= MAX_ENDPOINTS_PER_ACCOUNT)
    throw new AppError('UNPROCESSABLE', `an account may have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints`);
  const secret = newWebhookSecret();
  const record: WebhookEndpointRecord = {
    url,
    description: i.description ?? null,
    eventTypes: [...new Set(i.eventTypes ?? [])],
    deviceIds: [...new Set(i.deviceIds ?? [])],
    deviceGroupId: i.deviceGroupId ?? null,
    tag: i.tag ?? null,
    enabled: i.enabled ?? true,
    disabledReason: null,
    consecutiveFailures: 0,
    failingSince: null,
    secrets: [{ secret, expiresAt: null }],
  };
  return { endpoint: await deps.repo.addEndpoint(tenant, record), secret };
}

async function getEndpoint(deps: WebhookDeps, tenant: string, id: string): Promise<WebhookEndpoint> {
  const e = await deps.repo.findEndpoint(tenant, id);
  if (!e) throw notFound('webhook endpoint', id.slice(0, 100));
  return e;
}

export async function updateEndpoint(deps: WebhookDeps, tenant: string, id: string, input: unknown): Promise<WebhookEndpoint> {
  const current = await getEndpoint(deps, tenant, id);
  const i = parseInput(changesSchema, input);
  await checkFilters(deps, tenant, i);
  const set: Partial<WebhookEndpointRecord> = {};
  if (i.url !== undefined && i.url !== null) set.url = checkedUrl(i.url);
  if (i.description !== undefined) set.description = i.description;
  if (i.eventTypes !== undefined) set.eventTypes = [...new Set(i.eventTypes ?? [])];
  if (i.deviceIds !== undefined) set.deviceIds = [...new Set(i.deviceIds ?? [])];
  if (i.deviceGroupId !== undefined) set.deviceGroupId = i.deviceGroupId;
  if (i.tag !== undefined) set.tag = i.tag;
  if (i.enabled !== undefined && i.enabled !== null) {
    set.enabled = i.enabled;
    // Enabled again by hand: a fresh start.
    if (i.enabled && !current.enabled) Object.assign(set, { disabledReason: null, consecutiveFailures: 0, failingSince: null });
  }
  if (Object.keys(set).length === 0) return current;
  const changed = await deps.repo.changeEndpoint(tenant, current.id, set);
  if (!changed) throw notFound('webhook endpoint', id.slice(0, 100));
  return changed;
}

export async function deleteEndpoint(deps: WebhookDeps, tenant: string, id: string): Promise<{ endpointId: string }> {
  const current = await getEndpoint(deps, tenant, id);
  if (!(await deps.repo.removeEndpoint(tenant, current.id))) throw notFound('webhook endpoint', id.slice(0, 100));
  return { endpointId: current.id };
}

/** A new current secret; the previous one signs beside it until now + overlap (0: not at all). */
export async function rotateSecret(
  deps: WebhookDeps,
  tenant: string,
  id: string,
  overlapSeconds?: number | null,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const current = await getEndpoint(deps, tenant, id);
  const overlap = overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_OVERLAP_SECONDS)
    throw new AppError('BAD_USER_INPUT', `overlapSeconds must be 0 to ${MAX_OVERLAP_SECONDS}`, { field: 'overlapSeconds' });
  const secret = newWebhookSecret();
  const previous = current.secrets[0];
  const secrets = [
    { secret, expiresAt: null },
    ...(previous && overlap > 0 ? [{ secret: previous.secret, expiresAt: new Date(deps.now() + overlap * 1000).toISOString() }] : []),
  ];
  const endpoint = await deps.repo.changeEndpoint(tenant, current.id, { secrets });
  if (!endpoint) throw notFound('webhook endpoint', id.slice(0, 100));
  return { endpoint, secret };
}

/** The delivery record of an event for an endpoint, due at once. */
export const deliveryOf = (endpointId: string, event: PushEvent, nowIso: string) => ({
  endpointId,
  eventId: event.id,
  eventType: event.type,
  eventTimestamp: event.timestamp,
  event,
  status: 'PENDING',
  attempts: [],
  nextAttemptAt: nowIso,
  leaseUntil: null,
  leaseOwner: null,
});

export async function sendTestEvent(deps: WebhookDeps, tenant: string, id: string): Promise<WebhookDelivery> {
  const endpoint = await getEndpoint(deps, tenant, id);
  const event = pushEvent(tenant, 'webhook.test', { webhook_endpoint_id: endpoint.id, message: 'a test event from Pylon' }, deps.now());
  const d = await deps.repo.queue(tenant, deliveryOf(endpoint.id, event as PushEvent, new Date(deps.now()).toISOString()));
  if (!d) throw new AppError('UNPROCESSABLE', 'the test event was not queued; try again');
  return d;
}

const instant = (v: string | null | undefined, field: string): string | undefined => {
  if (v === undefined || v === null) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new AppError('BAD_USER_INPUT', `${field} is not an ISO 8601 time`, { field });
  return new Date(t).toISOString();
};

/** Queues the endpoint's deliveries again (one event, or a time range): due now, attempts kept in the log. */
export async function redeliver(
  deps: WebhookDeps,
  tenant: string,
  id: string,
  q: { eventId?: string | null; from?: string | null; to?: string | null },
): Promise<number> {
  const endpoint = await getEndpoint(deps, tenant, id);
  const from = instant(q.from, 'from');
  const to = instant(q.to, 'to');
  if (!q.eventId && !from && !to) throw new AppError('BAD_USER_INPUT', 'give eventId, or from and/or to', { field: 'eventId' });
  const found = await deps.repo.deliveriesFor(
    tenant,
    endpoint.id,
    { ...(q.eventId ? { eventId: q.eventId.slice(0, 100) } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) },
    MAX_REDELIVER,
  );
  if (q.eventId && found.length === 0) throw notFound('webhook event', q.eventId.slice(0, 100));
  const nowIso = new Date(deps.now()).toISOString();
  for (const d of found) await deps.repo.settle(tenant, d.id, { status: 'PENDING', nextAttemptAt: nowIso });
  return found.length;
}
