/**
 * The group side of every grouped resource (devices, media, playlists, templates, schedules):
 * groups nest through parentId, members carry their group's id and (denormalised) name so they
 * filter and sort by it without a join. Written once over the documents port; each subgraph's
 * repository owns the two collections and hands them in.
 */
import { AppError } from './errors.js';
import { findOrNotFound } from './find-or-not-found.js';
import type { Collection, Filter, Sort, Stored } from './ports/documents.js';

/** A stored group: a name and the parent it nests under (null: top level). */
export interface GroupRecord {
  name: string;
  parentId: string | null;
}

/** What every member of a group stores about it. */
export interface GroupMember {
  groupId: string | null;
  groupName: string | null;
}

export type StoredGroup = Stored<GroupRecord>;

/** Which groups a listing wants, in which order (a documents-port filter and sort). */
export interface GroupQuery {
  filter: Filter;
  sort: Sort;
}

export class GroupTreeRepository<M extends GroupMember = GroupMember> {
  constructor(
    private readonly groups: Collection<GroupRecord>,
    private readonly members: Collection<M>,
    /** What the members are called in messages ('device', 'media', 'schedule', ...). */
    readonly noun: string,
  ) {}

  /** The tenant's groups matching `query.filter` (all without one), by `query.sort` (default name, id). */
  listGroups(tenant: string, query: GroupQuery = { filter: {}, sort: { name: 1, id: 1 } }): Promise<StoredGroup[]> {
    return this.groups.find(tenant, query.filter, { sort: query.sort });
  }

  /** One of the tenant's groups, or NOT_FOUND (a foreign id reads exactly like an unknown one). */
  getGroup(tenant: string, id: string): Promise<StoredGroup> {
    return findOrNotFound(this.groups, tenant, id, `${this.noun} group`);
  }

  /** The group a member is put in, by id; refuses ids that are not the tenant's groups, naming the field. */
  async groupFor(tenant: string, groupId: string | null | undefined, field = 'groupId'): Promise<GroupMember> {
    if (groupId === null || groupId === undefined || groupId === '') return { groupId: null, groupName: null };
    const g = await this.groups.findById(tenant, groupId);
    if (!g) throw new AppError('BAD_USER_INPUT', `${this.noun} group '${groupId.slice(0, 100)}' was not found`, { field });
    return { groupId: g.id, groupName: g.name };
  }

  addGroup(tenant: string, group: GroupRecord): Promise<StoredGroup> {
    return this.groups.insert(tenant, group);
  }

  /** Renames and/or moves a group; a new name is copied onto its members (they filter and sort by it). */
  async changeGroup(tenant: string, group: StoredGroup, change: GroupRecord): Promise<void> {
    await this.groups.update(tenant, group.id, { $set: { name: change.name, parentId: change.parentId } });
    if (change.name !== group.name) {
      const members = await this.members.find(tenant, { groupId: group.id }, {});
      await Promise.all(members.map((d) => this.members.update(tenant, d.id, { $set: { groupName: change.name } })));
    }
  }

  /** Deletes a group after moving its members and sub-groups up to its parent (or out of any group). */
  async removeGroupMovingUp(tenant: string, group: StoredGroup): Promise<{ movedItems: number; movedGroups: number }> {
    const parent = group.parentId ? await this.groups.findById(tenant, group.parentId) : null;
    const [members, children] = await Promise.all([this.members.find(tenant, { groupId: group.id }, {}), this.groups.find(tenant, { parentId: group.id }, {})]);
    await Promise.all(members.map((d) => this.members.update(tenant, d.id, { $set: { groupId: parent?.id ?? null, groupName: parent?.name ?? null } })));
    await Promise.all(children.map((c) => this.groups.update(tenant, c.id, { $set: { parentId: parent?.id ?? null } })));
    await this.groups.delete(tenant, group.id);
    return { movedItems: members.length, movedGroups: children.length };
  }

  /** The groupId of every grouped member (one entry per member), for group counts. */
  async memberGroupIds(tenant: string): Promise<string[]> {
    const grouped = await this.members.find(tenant, { groupId: { $ne: null } }, {});
    return grouped.flatMap((d) => (d.groupId ? [d.groupId] : []));
  }
}
