/**
 * Power schedules (one per target, per account) and the due-time set of display edges the edge
 * sweeper walks; intent-named methods, each scoped to the tenant (the edges to the system tenant,
 * with the device's account in the entry, so one index walk serves every account).
 */
import { findOrNotFound, insertUnlessPresent, type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import { POWER_EDGES, POWER_SCHEDULES, SYSTEM_TENANT } from '../../domain/collections.js';
import type { PowerScheduleRecord, PowerScope } from '../../domain/power.js';

export type PowerSchedule = Stored<PowerScheduleRecord>;

/** Tenant of the edge entries (they span accounts). */
export const POWER_SYSTEM_TENANT = SYSTEM_TENANT;

export interface PowerEdgeRecord {
  account: string;
  /** Epoch ms of the device's next display edge. */
  dueAt: number;
}
export type PowerEdge = Stored<PowerEdgeRecord>;

const code = (e: unknown) => (e as { code?: string } | null)?.code ?? '';

export class PowerScheduleRepository {
  private readonly schedules: Collection<PowerScheduleRecord>;
  private readonly edges: Collection<PowerEdgeRecord>;

  constructor(store: DocumentStore) {
    this.schedules = store.collection<PowerScheduleRecord>(POWER_SCHEDULES);
    this.edges = store.collection<PowerEdgeRecord>(POWER_EDGES);
  }

  /** Creates or replaces the schedule of a target (one per target). */
  async put(tenant: string, record: PowerScheduleRecord): Promise<PowerSchedule> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [existing] = await this.schedules.find(tenant, { scope: record.scope, target: record.target }, { limit: 1 });
      try {
        if (existing) {
          const replaced = await this.schedules.update(tenant, existing.id, { $set: { ...record } }, { expectedVersion: existing.version });
          if (replaced) return replaced;
        } else return await this.schedules.insert(tenant, record);
      } catch (e) {
        if (!['VERSION_CONFLICT', 'DUPLICATE_KEY'].includes(code(e))) throw e;
      }
    }
    throw Object.assign(new Error('the power schedule changed while it was being written; retry'), { code: 'VERSION_CONFLICT' });
  }

  /** One of the tenant's schedules, or NOT_FOUND (a foreign id reads like an unknown one). */
  get(tenant: string, id: string): Promise<PowerSchedule> {
    return findOrNotFound(this.schedules, tenant, id, 'power schedule');
  }

  remove(tenant: string, id: string): Promise<boolean> {
    return this.schedules.delete(tenant, id);
  }

  /** Every schedule of the tenant (few: one per device, group or tag that has one), by scope then target. */
  all(tenant: string, scope?: PowerScope): Promise<PowerSchedule[]> {
    return this.schedules.find(tenant, scope ? { scope } : {}, { sort: { scope: 1, target: 1 }, limit: 10_000 });
  }

  /** The device's next edge is at `dueAt` (insert or move). */
  async watch(account: string, deviceId: string, dueAt: number): Promise<void> {
    if (await this.edges.update(POWER_SYSTEM_TENANT, deviceId, { $set: { account, dueAt } })) return;
    if (!(await insertUnlessPresent(this.edges, POWER_SYSTEM_TENANT, { id: deviceId, account, dueAt })))
      await this.edges.update(POWER_SYSTEM_TENANT, deviceId, { $set: { account, dueAt } });
  }

  unwatch(deviceId: string): Promise<boolean> {
    return this.edges.delete(POWER_SYSTEM_TENANT, deviceId);
  }

  /** Edges due at `now`, earliest first (an index walk that stops past `now`). */
  due(now: number, limit: number): Promise<PowerEdge[]> {
    return this.edges.find(POWER_SYSTEM_TENANT, { dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit });
  }

  /**
   * Moves (or, with null, ends) an edge read at `version`; false when another sweeper moved it first:
   * whoever moves it sends the edge's command, so each edge is sent once across replicas.
   */
  async claim(edge: PowerEdge, next: number | null): Promise<boolean> {
    try {
      if (next === null) return await this.edges.delete(POWER_SYSTEM_TENANT, edge.id, { expectedVersion: edge.version });
      return (await this.edges.update(POWER_SYSTEM_TENANT, edge.id, { $set: { dueAt: next } }, { expectedVersion: edge.version })) !== null;
    } catch (e) {
      if (code(e) === 'VERSION_CONFLICT') return false;
      throw e;
    }
  }
}
