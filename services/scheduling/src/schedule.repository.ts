import type { Collection, DocumentStore, Filter, FindOptions, Stored } from '@pylon/kit';
import { SCHEDULES, SCHEDULE_GROUPS } from './domain/collections.js';
import type { ScheduleGroupRecord, ScheduleRecord } from './domain/schedule.js';

export type Schedule = Stored<ScheduleRecord>;
export type ScheduleGroup = Stored<ScheduleGroupRecord>;

/** Schedules and schedule groups of one account, over the documents port. */
export class ScheduleRepository {
  readonly schedules: Collection<ScheduleRecord>;
  readonly groups: Collection<ScheduleGroupRecord>;

  constructor(store: DocumentStore) {
    this.schedules = store.collection<ScheduleRecord>(SCHEDULES);
    this.groups = store.collection<ScheduleGroupRecord>(SCHEDULE_GROUPS);
  }

  findSchedules(tenant: string, filter: Filter, options: FindOptions): Promise<Schedule[]> {
    return this.schedules.find(tenant, filter, options);
  }

  listGroups(tenant: string): Promise<ScheduleGroup[]> {
    return this.groups.find(tenant, {}, { sort: { name: 1, id: 1 } });
  }

  /** The groupId of every grouped schedule, for group counts. */
  async memberGroupIds(tenant: string): Promise<string[]> {
    const grouped = await this.schedules.find(tenant, { groupId: { $ne: null } }, {});
    return grouped.flatMap((s) => (s.groupId ? [s.groupId] : []));
  }
}
