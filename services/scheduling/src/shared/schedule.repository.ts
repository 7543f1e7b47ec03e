/**
 * Schedules and schedule groups, sealed: use cases call intent-named methods, never the
 * collections' operators. Every method takes the tenant, so nothing reads or writes across accounts.
 */
import { findOrNotFound, GroupTreeRepository, notFound, type Collection, type DocumentStore, type Filter, type FindOptions, type Stored } from '@pylon/kit';
import { SCHEDULES, SCHEDULE_GROUPS } from '../domain/collections.js';
import type { ScheduleGroupRecord, ScheduleRecord } from '../domain/schedule.js';

export type Schedule = Stored<ScheduleRecord>;
export type ScheduleGroup = Stored<ScheduleGroupRecord>;

/** Schedules and schedule groups of one account, over the documents port. */
export class ScheduleRepository {
  /** Raw collections: for this file and test seeding only. */
  readonly schedules: Collection<ScheduleRecord>;
  readonly groups: Collection<ScheduleGroupRecord>;
  /** Schedule groups as a tree (kit rules): listing, create, move, delete moving schedules up. */
  readonly groupTree: GroupTreeRepository<ScheduleRecord>;

  constructor(store: DocumentStore) {
    this.schedules = store.collection<ScheduleRecord>(SCHEDULES);
    this.groups = store.collection<ScheduleGroupRecord>(SCHEDULE_GROUPS);
    this.groupTree = new GroupTreeRepository(this.groups, this.schedules, 'schedule');
  }

  findSchedules(tenant: string, filter: Filter, options: FindOptions): Promise<Schedule[]> {
    return this.schedules.find(tenant, filter, options);
  }

  /** How many of the tenant's schedules match `filter` (counted by the store). */
  countSchedules(tenant: string, filter: Filter): Promise<number> {
    return this.schedules.count(tenant, filter);
  }

  /** The tenant's schedules among `ids` (one scan); unknown and foreign ids are simply absent. */
  findByIds(tenant: string, ids: readonly string[]): Promise<Schedule[]> {
    return ids.length ? this.schedules.find(tenant, { id: { $in: [...ids] } }, {}) : Promise.resolve([]);
  }

  /** The tenant's schedules that include the device. */
  forDevice(tenant: string, deviceId: string): Promise<Schedule[]> {
    return this.schedules.find(tenant, { deviceIds: deviceId }, {});
  }

  /** Takes deleted devices out of every schedule of the tenant that names them; the number of schedules changed. */
  async dropDevices(tenant: string, deviceIds: readonly string[]): Promise<number> {
    const gone = new Set(deviceIds);
    const naming = await this.schedules.find(tenant, { deviceIds: { $in: [...gone] } }, {});
    for (const s of naming) await this.schedules.update(tenant, s.id, { $set: { deviceIds: (s.deviceIds ?? []).filter((id) => !gone.has(id)) } });
    return naming.length;
  }

  /** The tenant's schedules playing this playlist or template (directly). */
  playing(tenant: string, ref: { playlistIds?: readonly string[]; templateIds?: readonly string[] }): Promise<Schedule[]> {
    const or: Filter[] = [];
    if (ref.playlistIds?.length) or.push({ playlistId: { $in: [...ref.playlistIds] } });
    if (ref.templateIds?.length) or.push({ templateId: { $in: [...ref.templateIds] } });
    return or.length ? this.schedules.find(tenant, { $or: or }, {}) : Promise.resolve([]);
  }

  /** One of the tenant's schedules, or NOT_FOUND (a foreign id reads exactly like an unknown one). */
  get(tenant: string, id: string): Promise<Schedule> {
    return findOrNotFound(this.schedules, tenant, id, 'schedule');
  }

  add(tenant: string, record: ScheduleRecord): Promise<Schedule> {
    return this.schedules.insert(tenant, record);
  }

  /** Replaces the properties; with expectedVersion, VERSION_CONFLICT when it changed since it was read. */
  async replace(tenant: string, id: string, record: ScheduleRecord, expectedVersion?: number): Promise<Schedule> {
    const updated = await this.schedules.update(tenant, id, { $set: { ...record } }, expectedVersion === undefined ? {} : { expectedVersion });
    if (!updated) throw notFound('schedule', id.slice(0, 100));
    return updated;
  }

  async remove(tenant: string, id: string): Promise<void> {
    if (!(await this.schedules.delete(tenant, id))) throw notFound('schedule', id.slice(0, 100));
  }
}
