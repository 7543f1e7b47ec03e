/**
 * CAP feeds, the alerts they read, and the registry of accounts with feeds; sealed like the other
 * repositories: intent-named methods, each scoped to the tenant (the registry to SYSTEM_TENANT).
 */
import { createHash } from 'node:crypto';
import { findOrNotFound, notFound, type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import { CAP_ALERTS, CAP_FEED_ACCOUNTS, CAP_FEEDS, SYSTEM_TENANT } from '../../domain/collections.js';
import type { CapAlertRecord, CapFeedRecord } from '../../domain/cap.js';

export type CapFeed = Stored<CapFeedRecord>;
export type CapAlertSeen = Stored<CapAlertRecord>;

const isConflict = (e: unknown) => ['VERSION_CONFLICT', 'DUPLICATE_KEY'].includes((e as { code?: string } | null)?.code ?? '');

/** The record id of an alert of a feed: one per feed, sender and identifier. */
export const alertRecordId = (feedId: string, sender: string, identifier: string): string =>
  createHash('sha256').update(`${feedId}\n${sender}\n${identifier}`).digest('hex').slice(0, 32);

export class CapFeedRepository {
  private readonly feeds: Collection<CapFeedRecord>;
  private readonly alerts: Collection<CapAlertRecord>;
  private readonly accounts: Collection<{ since: string }>;

  constructor(store: DocumentStore) {
    this.feeds = store.collection<CapFeedRecord>(CAP_FEEDS);
    this.alerts = store.collection<CapAlertRecord>(CAP_ALERTS);
    this.accounts = store.collection<{ since: string }>(CAP_FEED_ACCOUNTS);
  }

  async add(tenant: string, record: CapFeedRecord): Promise<CapFeed> {
    const feed = await this.feeds.insert(tenant, record);
    await this.accounts.insert(SYSTEM_TENANT, { id: tenant, since: record.nextPollAt }).catch((e: unknown) => {
      if (!isConflict(e)) throw e;
    });
    return feed;
  }

  /** One of the tenant's feeds, or NOT_FOUND (a foreign id reads like an unknown one). */
  get(tenant: string, id: string): Promise<CapFeed> {
    return findOrNotFound(this.feeds, tenant, id, 'CAP feed');
  }

  list(tenant: string, limit: number): Promise<CapFeed[]> {
    return this.feeds.find(tenant, {}, { sort: { name: 1, id: 1 }, limit });
  }

  count(tenant: string): Promise<number> {
    return this.feeds.count(tenant, {});
  }

  async change(tenant: string, id: string, changes: Partial<CapFeedRecord>): Promise<CapFeed> {
    const updated = await this.feeds.update(tenant, id, { $set: changes });
    if (!updated) throw notFound('CAP feed', id.slice(0, 100));
    return updated;
  }

  /** Deletes the feed and what it read (the overrides it started stay, with their history). */
  async remove(tenant: string, id: string): Promise<boolean> {
    const gone = await this.feeds.delete(tenant, id);
    if (gone) await this.alerts.deleteMany(tenant, { feedId: id });
    return gone;
  }

  /** Enabled feeds of the tenant due at `nowIso`. */
  due(tenant: string, nowIso: string): Promise<CapFeed[]> {
    return this.feeds.find(tenant, { enabled: true, nextPollAt: { $lte: nowIso } }, { limit: 100 });
  }

  /** Takes the poll of a due feed: false when another replica took it first (expected version). */
  async lease(tenant: string, seen: CapFeed, nextPollAt: string): Promise<CapFeed | null> {
    try {
      return await this.feeds.update(tenant, seen.id, { $set: { nextPollAt } }, { expectedVersion: seen.version });
    } catch (e) {
      if (isConflict(e)) return null;
      throw e;
    }
  }

  /** Accounts with feeds (the poller's round). */
  async tenants(): Promise<string[]> {
    return (await this.accounts.find(SYSTEM_TENANT, {}, { limit: 100_000 })).map((a) => a.id);
  }

  /** Records an alert the first time the feed sees it; null when it was seen before (by any replica). */
  async firstSighting(tenant: string, record: CapAlertRecord): Promise<CapAlertSeen | null> {
    try {
      return await this.alerts.insert(tenant, { ...record, id: alertRecordId(record.feedId, record.sender, record.identifier) });
    } catch (e) {
      if (isConflict(e)) return null;
      throw e;
    }
  }

  settle(tenant: string, id: string, changes: Pick<CapAlertRecord, 'outcome' | 'detail' | 'overrideId'>): Promise<CapAlertSeen | null> {
    return this.alerts.update(tenant, id, { $set: changes });
  }

  findAlert(tenant: string, feedId: string, sender: string, identifier: string): Promise<CapAlertSeen | null> {
    return this.alerts.findById(tenant, alertRecordId(feedId, sender, identifier));
  }

  recentAlerts(tenant: string, feedId: string, limit: number): Promise<CapAlertSeen[]> {
    return this.alerts.find(tenant, { feedId }, { sort: { receivedAt: -1, id: 1 }, limit });
  }
}
