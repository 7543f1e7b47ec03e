/** Webhook endpoints, their delivery log and the accounts that have any, over the documents port. */
import { insertUnlessPresent, listQuery, STAMP_FIELDS, storedFields } from '@pylon/kit';
import type { Collection, DocumentStore, FieldMap, Stored, UpdateSpec } from '@pylon/kit';
import { WEBHOOK_ACCOUNTS, WEBHOOK_DELIVERIES, WEBHOOK_ENDPOINTS, type WebhookDeliveryRecord, type WebhookEndpointRecord } from '../../domain/records.js';

export type WebhookEndpoint = Stored<WebhookEndpointRecord>;
export type WebhookDelivery = Stored<WebhookDeliveryRecord>;

const SYSTEM_TENANT = '_system';

/** dueAt of a delivery in this state: its next attempt while it waits for one, none once finished. */
function dueOf(set: Partial<WebhookDeliveryRecord>): { dueAt?: number } {
  return (set.status === 'PENDING' || set.status === 'FAILED') && set.nextAttemptAt ? { dueAt: Date.parse(set.nextAttemptAt) } : {};
}

/** The update that settles a delivery: its new state, the lease released, dueAt following the state. */
function settled(set: Partial<WebhookDeliveryRecord>): UpdateSpec {
  const due = dueOf(set);
  return { $set: { ...set, ...due, leaseOwner: null, leaseUntil: null }, ...(due.dueAt === undefined ? { $unset: ['dueAt'] } : {}) };
}

/** How the GraphQL where/order fields of WebhookEndpoint map onto stored endpoints (never the secrets). */
export const ENDPOINT_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'url', 'description', 'deviceGroupId', 'tag', 'disabledReason']),
  ...storedFields('stringList', ['eventTypes', 'deviceIds']),
  enabled: { path: 'enabled', kind: 'boolean' },
  consecutiveFailures: { path: 'consecutiveFailures', kind: 'number' },
  ...STAMP_FIELDS,
};

/** How the GraphQL where/order fields of WebhookDelivery map onto stored deliveries. */
export const DELIVERY_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'eventId', 'eventType', 'status']),
  ...storedFields('date', ['eventTimestamp', 'nextAttemptAt']),
  createdOn: { path: 'createdAt', kind: 'date' },
};

export class WebhookRepository {
  private readonly endpoints: Collection<WebhookEndpointRecord>;
  private readonly deliveries: Collection<WebhookDeliveryRecord>;
  private readonly accounts: Collection<{ account: string }>;

  constructor(store: DocumentStore) {
    this.endpoints = store.collection<WebhookEndpointRecord>(WEBHOOK_ENDPOINTS);
    this.deliveries = store.collection<WebhookDeliveryRecord>(WEBHOOK_DELIVERIES);
    this.accounts = store.collection<{ account: string }>(WEBHOOK_ACCOUNTS);
  }

  async addEndpoint(tenant: string, record: WebhookEndpointRecord): Promise<WebhookEndpoint> {
    const e = await this.endpoints.insert(tenant, record);
    // `accountId` is the store's own field (the system tenant here): the account goes in `account`.
    await insertUnlessPresent(this.accounts, SYSTEM_TENANT, { id: tenant, account: tenant });
    return e;
  }

  async listEndpoints(
    tenant: string,
    q: { ids?: readonly string[] | null; limit: number; skip: number; where?: unknown; order?: unknown },
  ): Promise<WebhookEndpoint[]> {
    if (q.where === undefined && q.order === undefined)
      return this.endpoints.find(tenant, q.ids ? { id: { $in: [...q.ids] } } : {}, { sort: { createdAt: 1 }, limit: q.limit, skip: q.skip });
    const { filter, options } = listQuery({ where: q.where, order: q.order }, ENDPOINT_FIELDS, {
      clauses: q.ids ? [{ id: { $in: [...q.ids] } }] : [],
      fallbackSort: { createdAt: 1, id: 1 },
    });
    return this.endpoints.find(tenant, filter, { sort: options.sort, limit: q.limit, skip: q.skip });
  }

  /** The enabled endpoints of the account (fan-out reads them). */
  enabledEndpoints(tenant: string): Promise<WebhookEndpoint[]> {
    return this.endpoints.find(tenant, { enabled: true }, { limit: 1000 });
  }

  findEndpoint(tenant: string, id: string): Promise<WebhookEndpoint | null> {
    return this.endpoints.findById(tenant, id);
  }

  changeEndpoint(tenant: string, id: string, set: Partial<WebhookEndpointRecord>): Promise<WebhookEndpoint | null> {
    return this.endpoints.update(tenant, id, { $set: set });
  }

  async removeEndpoint(tenant: string, id: string): Promise<boolean> {
    const gone = await this.endpoints.delete(tenant, id);
    if (gone) await this.deliveries.deleteMany(tenant, { endpointId: id });
    return gone;
  }

  /** Accounts with endpoints (the worker's round). */
  async accountIds(): Promise<string[]> {
    return (await this.accounts.find(SYSTEM_TENANT, {}, { limit: 100_000 })).map((a) => a.account);
  }

  /** Queues one event for one endpoint; the id is the pair, so a redelivered stream message queues nothing twice. */
  queue(tenant: string, record: WebhookDeliveryRecord): Promise<WebhookDelivery | null> {
    return insertUnlessPresent(this.deliveries, tenant, { ...record, ...dueOf(record), id: `${record.eventId}.${record.endpointId}` });
  }

  findDelivery(tenant: string, id: string): Promise<WebhookDelivery | null> {
    return this.deliveries.findById(tenant, id);
  }

  /** The endpoint's log, newest first. */
  async deliveriesOf(tenant: string, endpointId: string, q: { limit: number; skip: number; where?: unknown; order?: unknown }): Promise<WebhookDelivery[]> {
    if (q.where === undefined && q.order === undefined)
      return this.deliveries.find(tenant, { endpointId }, { sort: { createdAt: -1 }, limit: q.limit, skip: q.skip });
    const { filter, options } = listQuery({ where: q.where, order: q.order }, DELIVERY_FIELDS, {
      clauses: [{ endpointId }],
      fallbackSort: { createdAt: -1, id: -1 },
    });
    return this.deliveries.find(tenant, filter, { sort: options.sort, limit: q.limit, skip: q.skip });
  }

  /** Deliveries of the endpoint for one event, or whose events were produced in [from, to). */
  deliveriesFor(tenant: string, endpointId: string, q: { eventId?: string; from?: string; to?: string }, limit: number): Promise<WebhookDelivery[]> {
    const filter: Record<string, unknown> = { endpointId };
    if (q.eventId) filter.eventId = q.eventId;
    if (q.from || q.to) filter.eventTimestamp = { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lt: q.to } : {}) };
    return this.deliveries.find(tenant, filter, { sort: { eventTimestamp: 1 }, limit });
  }

  /**
   * Attempts due now whose lease (if any) ran out, oldest event first: an index walk over the
   * waiting deliveries' dueAt that stops past now (never a scan of the log).
   */
  async due(tenant: string, nowIso: string, limit: number): Promise<WebhookDelivery[]> {
    const found = await this.deliveries.find(tenant, { dueAt: { $exists: true, $lte: Date.parse(nowIso) } }, { sort: { dueAt: 1 }, limit });
    return found
      .filter((d) => (d.status === 'PENDING' || d.status === 'FAILED') && (d.leaseUntil === null || d.leaseUntil <= nowIso))
      .sort((a, b) => (a.eventTimestamp < b.eventTimestamp ? -1 : a.eventTimestamp > b.eventTimestamp ? 1 : 0));
  }

  /** Deliveries stored before the `due` index existed get their dueAt (once, when a worker starts). */
  async backfillDue(tenant: string): Promise<number> {
    const waiting = await this.deliveries.find(tenant, { status: { $in: ['PENDING', 'FAILED'] }, dueAt: { $exists: false } }, { limit: 100_000 });
    await Promise.all(
      waiting.map((d) => this.deliveries.update(tenant, d.id, { $set: { dueAt: Date.parse(d.leaseUntil ?? d.nextAttemptAt ?? new Date().toISOString()) } })),
    );
    return waiting.length;
  }

  /**
   * Claims the next attempt for `owner` until `until`, at the version read: of two workers racing
   * for it, one gets it and the other a VERSION_CONFLICT (null here).
   */
  async lease(tenant: string, d: WebhookDelivery, owner: string, until: string): Promise<WebhookDelivery | null> {
    try {
      // Due again when the lease runs out (the worker died holding it); settling moves it on.
      return await this.deliveries.update(
        tenant,
        d.id,
        { $set: { leaseOwner: owner, leaseUntil: until, dueAt: Date.parse(until) } },
        { expectedVersion: d.version },
      );
    } catch (e) {
      if ((e as { code?: string }).code === 'VERSION_CONFLICT') return null;
      throw e;
    }
  }

  /** Gives up a lease this worker did not use (at the version it leased): due again at its next attempt time. */
  async release(tenant: string, leased: WebhookDelivery): Promise<void> {
    await this.deliveries
      .update(tenant, leased.id, settled({ status: leased.status, nextAttemptAt: leased.nextAttemptAt }), { expectedVersion: leased.version })
      .catch((e: unknown) => {
        if ((e as { code?: string }).code !== 'VERSION_CONFLICT') throw e;
      });
  }

  settle(tenant: string, id: string, set: Partial<WebhookDeliveryRecord>): Promise<WebhookDelivery | null> {
    return this.deliveries.update(tenant, id, settled(set));
  }

  /**
   * Records an attempt's outcome at the version the lease wrote. When the delivery changed meanwhile
   * (a redelivery was asked for during the attempt), only the attempt is added: its new state stands.
   */
  async settleAttempt(tenant: string, leased: WebhookDelivery, set: Partial<WebhookDeliveryRecord> & Pick<WebhookDeliveryRecord, 'attempts'>): Promise<void> {
    try {
      await this.deliveries.update(tenant, leased.id, settled(set), { expectedVersion: leased.version });
    } catch (e) {
      if ((e as { code?: string }).code !== 'VERSION_CONFLICT') throw e;
      const now = await this.deliveries.findById(tenant, leased.id);
      if (now)
        await this.deliveries.update(tenant, leased.id, { $set: { attempts: [...now.attempts, ...set.attempts.slice(leased.attempts.length)].slice(-50) } });
    }
  }
}
