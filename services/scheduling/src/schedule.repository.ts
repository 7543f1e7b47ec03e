/**
 * Schedules and schedule groups, sealed: use cases call intent-named methods, never the
 * collections' operators. Every method takes the tenant, so nothing reads or writes across accounts.
 */
import { AppError, notFound, type Collection, type DocumentStore, type Filter, type FindOptions, type Stored } from '@pylon/kit';
import { SCHEDULES, SCHEDULE_GROUPS } from './domain/collections.js';
import type { ScheduleGroupRecord, ScheduleRecord } from './domain/schedule.js';

export type Schedule = Stored<ScheduleRecord>;
export type ScheduleGroup = Stored<ScheduleGroupRecord>;

/** Schedules and schedule groups of one account, over the documents port. */
export class ScheduleRepository {
  /** Raw collections: for this file and test seeding only. */
  readonly schedules: Collection<ScheduleRecord>;
  readonly groups: Collection<ScheduleGroupRecord>;

  constructor(store: DocumentStore) {
    this.schedules = store.collection<ScheduleRecord>(SCHEDULES);
    this.groups = store.collection<ScheduleGroupRecord>(SCHEDULE_GROUPS);
  }

  findSchedules(tenant: string, filter: Filter, options: FindOptions): Promise<Schedule[]> {
    return this.schedules.find(tenant, filter, options);
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
  async get(tenant: string, id: string): Promise<Schedule> {
    const found = await this.schedules.findById(tenant, id);
    if (!found) throw notFound('schedule', id.slice(0, 100));
    return found;
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

  listGroups(tenant: string): Promise<ScheduleGroup[]> {
    return this.groups.find(tenant, {}, { sort: { name: 1, id: 1 } });
  }

  async getGroup(tenant: string, id: string): Promise<ScheduleGroup> {
    const g = await this.groups.findById(tenant, id);
    if (!g) throw notFound('schedule group', id.slice(0, 100));
    return g;
  }

  /** The group a schedule is put in, by id; refuses ids that are not the tenant's groups, naming the field. */
  async groupFor(tenant: string, groupId: string | null | undefined, field = 'groupId'): Promise<{ groupId: string | null; groupName: string | null }> {
    if (groupId === null || groupId === undefined || groupId === '') return { groupId: null, groupName: null };
    const g = await this.groups.findById(tenant, groupId);
    if (!g) throw new AppError('BAD_USER_INPUT', `schedule group '${groupId.slice(0, 100)}' was not found`, { field });
    return { groupId: g.id, groupName: g.name };
  }

  addGroup(tenant: string, group: ScheduleGroupRecord): Promise<ScheduleGroup> {
    return this.groups.insert(tenant, group);
  }

  /** Renames and/or moves a group; the name is copied onto its schedules (they filter and sort by it). */
  async changeGroup(tenant: string, group: ScheduleGroup, name: string, parentId: string | null): Promise<void> {
    await this.groups.update(tenant, group.id, { $set: { name, parentId } });
    if (name !== group.name) {
      const members = await this.schedules.find(tenant, { groupId: group.id }, {});
      await Promise.all(members.map((d) => this.schedules.update(tenant, d.id, { $set: { groupName: name } })));
    }
  }

  /** Deletes a group after moving its schedules and sub-groups up to its parent (or out of any group). */
  async removeGroupMovingUp(tenant: string, group: ScheduleGroup): Promise<{ movedItems: number; movedGroups: number }> {
    const parent = group.parentId ? await this.groups.findById(tenant, group.parentId) : null;
    const [members, children] = await Promise.all([
      this.schedules.find(tenant, { groupId: group.id }, {}),
      this.groups.find(tenant, { parentId: group.id }, {}),
    ]);
    await Promise.all(members.map((d) => this.schedules.update(tenant, d.id, { $set: { groupId: parent?.id ?? null, groupName: parent?.name ?? null } })));
    await Promise.all(children.map((c) => this.groups.update(tenant, c.id, { $set: { parentId: parent?.id ?? null } })));
    await this.groups.delete(tenant, group.id);
    return { movedItems: members.length, movedGroups: children.length };
  }

  /** The groupId of every grouped schedule, for group counts. */
  async memberGroupIds(tenant: string): Promise<string[]> {
    const grouped = await this.schedules.find(tenant, { groupId: { $ne: null } }, {});
    return grouped.flatMap((s) => (s.groupId ? [s.groupId] : []));
  }
}
