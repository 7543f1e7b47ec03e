import {
  derivedBooleanField,
  GroupTreeRepository,
  insertUnlessPresent,
  listQuery,
  notFound,
  storedFields,
  whereToFilter,
  type Collection,
  type DocumentStore,
  type FieldMap,
  type Filter,
  type ListArgs,
  type Stored,
} from '@pylon/kit';
import { DEVICE_GROUPS, DEVICES, DISPLAY_COMMANDS } from '../domain/collections.js';
import { DEFAULT_DISPLAY_COMMANDS, type DeviceGroupRecord, type DeviceRecord, type DisplayCommandRecord, type PingData } from '../domain/device.js';

export type Device = Stored<DeviceRecord>;
export type DeviceGroup = Stored<DeviceGroupRecord>;
export type DisplayCommand = Stored<DisplayCommandRecord>;

/** What a device listing asks for (GraphQL devices / REST GET /devices). */
export interface DeviceQuery extends ListArgs {
  id?: string[] | null;
  groupId?: string[] | null;
  groupName?: string[] | null;
  deviceTypeId?: string[] | null;
  orgId?: string | null;
  tag?: string[] | null;
  isOnline?: boolean | null;
  /** Only the device with this registration key (in the caller's account). */
  registrationKey?: string | null;
}

/** The fields a device change may set (writable fields, the denormalised group name). */
export type DeviceChanges = Partial<Omit<DeviceRecord, 'registrationKey' | 'pingData' | 'snapUpdatedAt'>>;

/**
 * Devices, groups and display commands of one account, over the documents port. The only module
 * of the subgraph that knows these collections and speaks Mongo-style filters to them.
 */
export class DeviceRepository {
  private readonly devices: Collection<DeviceRecord>;
  private readonly groups: Collection<DeviceGroupRecord>;
  /** Device groups as a tree (kit rules): listing, create, move, delete moving devices up. */
  readonly groupTree: GroupTreeRepository<DeviceRecord>;
  private readonly commands: Collection<DisplayCommandRecord>;

  constructor(store: DocumentStore) {
    this.devices = store.collection<DeviceRecord>(DEVICES);
    this.groups = store.collection<DeviceGroupRecord>(DEVICE_GROUPS);
    this.groupTree = new GroupTreeRepository(this.groups, this.devices, 'device');
    this.commands = store.collection<DisplayCommandRecord>(DISPLAY_COMMANDS);
  }

  // ---- devices ----

  /** A listing: argument filters AND where, sorted (default name), offset, limited. `cutoff` is the oldest ping still online. */
  list(tenant: string, q: DeviceQuery, cutoff: () => string): Promise<Device[]> {
    const { filter, options } = this.listing(q, cutoff);
    return this.devices.find(tenant, filter, options);
  }

  /** How many devices `list` would return with the same filters, without limit or offset (counted by the store). */
  count(tenant: string, q: DeviceQuery, cutoff: () => string): Promise<number> {
    return this.devices.count(tenant, this.listing({ ...q, limit: null, offset: null, order: null }, cutoff).filter);
  }

  private listing(q: DeviceQuery, cutoff: () => string): ReturnType<typeof listQuery> {
    const fields = deviceFields(cutoff);
    const clauses: Filter[] = [];
    if (q.orgId) clauses.push({ orgId: q.orgId });
    if (q.registrationKey !== undefined && q.registrationKey !== null) clauses.push({ registrationKey: q.registrationKey });
    if (q.isOnline !== undefined && q.isOnline !== null) clauses.push(whereToFilter({ isOnline: { eq: q.isOnline } }, fields));
    return listQuery(q, fields, {
      anyOf: { id: q.id, groupId: q.groupId, groupName: q.groupName, 'deviceType.id': q.deviceTypeId, tags: q.tag },
      clauses,
    });
  }

  /** The ids of every device a listing's filters match (no limit), in id order: a bulk job's targets. */
  async selectIds(tenant: string, q: DeviceQuery, cutoff: () => string): Promise<string[]> {
    const { filter } = this.listing({ ...q, limit: null, offset: null, order: null }, cutoff);
    return (await this.devices.find(tenant, filter, { sort: { id: 1 } })).map((d) => d.id);
  }

  /** Sets each device's own changes in one store round trip (bulk jobs); null for a device that is gone. */
  changeDevices(tenant: string, items: ReadonlyArray<{ id: string; changes: DeviceChanges }>): Promise<Array<Device | null>> {
    return this.devices.updateMany(
      tenant,
      items.map((i) => ({ id: i.id, update: { $set: i.changes } })),
    );
  }

  /** Every device of the account (the sweep, a rule applied to the fleet). */
  all(tenant: string, opts: { byName?: boolean } = {}): Promise<Device[]> {
    return this.devices.find(tenant, {}, opts.byName ? { sort: { name: 1, id: 1 } } : {});
  }

  async getDevice(tenant: string, id: string): Promise<Device> {
    const d = await this.devices.findById(tenant, id);
    if (!d) throw notFound('device', id);
    return d;
  }

  /** The device, or null when it is gone (no error: callers decide). */
  findDevice(tenant: string, id: string): Promise<Device | null> {
    return this.devices.findById(tenant, id);
  }

  /** One scan for many ids (bulk commands): never one round trip per device. */
  findByIds(tenant: string, ids: readonly string[]): Promise<Device[]> {
    return ids.length ? this.devices.find(tenant, { id: { $in: [...ids] } }, {}) : Promise.resolve([]);
  }

  /** Across accounts (the player authenticates with the key alone); callers check the account when they have one. */
  findByRegistrationKey(key: string): Promise<Device | null> {
    return this.devices.findByUnique('registrationKey', [key]);
  }

  /** Registers a device; fails with DUPLICATE_KEY when its registration key is taken (in any account). */
  addDevice(tenant: string, record: DeviceRecord & { id?: string }): Promise<Device> {
    return this.devices.insert(tenant, record);
  }

  /** Sets the given fields; with expectedVersion, fails with VERSION_CONFLICT on a concurrent change. Null when gone. */
  changeDevice(tenant: string, id: string, changes: DeviceChanges, expectedVersion?: number): Promise<Device | null> {
    return this.devices.update(tenant, id, { $set: changes }, expectedVersion === undefined ? {} : { expectedVersion });
  }

  /** False when it was already gone. */
  removeDevice(tenant: string, id: string): Promise<boolean> {
    return this.devices.delete(tenant, id);
  }

  /** Stores a ping's figures; `checkedAt` records that the ping read the command queue. Null when the device is gone. */
  /** Stores a ping's data (and, in the same write, when commands were looked for and whether the device is watched for silence). */
  recordPing(tenant: string, id: string, pingData: PingData, checkedAt: string | null, watched = false): Promise<Device | null> {
    return this.devices.update(tenant, id, {
      $set: { pingData, ...(checkedAt ? { commandsCheckedAt: checkedAt } : {}), ...(watched ? { silenceWatched: true } : {}) },
    });
  }

  markSnapUpdated(tenant: string, id: string, at: string): Promise<Device | null> {
    return this.devices.update(tenant, id, { $set: { snapUpdatedAt: at } });
  }

  /** The delivery hint: these devices have commands queued at or before `at`. */
  async markCommandsQueued(tenant: string, ids: readonly string[], at: string): Promise<void> {
    await this.devices.updateMany(
      tenant,
      ids.map((id) => ({ id, update: { $set: { commandsQueuedAt: at } } })),
    );
  }

  // ---- display commands ----

  /** The command names the account accepts (its display commands). */
  async knownCommands(tenant: string): Promise<Set<string>> {
    return new Set((await this.listCommands(tenant)).map((c) => c.command));
  }

  /**
   * The account's display commands, seeded with the defaults on first use; filtered by `where`,
   * sorted by `order` (default: the order they were added), at most `limit` (default 100).
   */
  async listCommands(tenant: string, q: Pick<ListArgs, 'where' | 'order' | 'limit'> = {}): Promise<DisplayCommand[]> {
    const { filter, options } = listQuery(q, DISPLAY_COMMAND_FIELDS, { fallbackSort: { createdAt: 1, id: 1 } });
    if ((await this.commands.find(tenant, {}, { limit: 1 })).length === 0) {
      for (const c of DEFAULT_DISPLAY_COMMANDS) {
        // null: a concurrent first call seeded it already.
        await insertUnlessPresent(this.commands, tenant, c);
      }
    }
    return this.commands.find(tenant, filter, options);
  }
}

/** How the GraphQL where/order fields of DisplayCommand map onto the stored documents. */
export const DISPLAY_COMMAND_FIELDS: FieldMap = {
  ...storedFields('string', ['name', 'command', 'arg']),
};

/** The device fields stored as they are (built once; `deviceFields` adds the derived isOnline). */
const STORED_DEVICE_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name', 'groupId', 'groupName', 'orgId']),
  tags: { path: 'tags', kind: 'stringList' },
  createdOn: { path: 'createdAt', kind: 'date' },
  deviceType: { nested: storedFields('string', ['id', 'name', 'manufacturer'], 'deviceType') },
  pingData: {
    nested: {
      ...storedFields('number', ['cpuUsage', 'memoryUsage', 'diskUsage'], 'pingData'),
      ...storedFields('string', ['playerVersion', 'ipAddress'], 'pingData'),
      timestamp: { path: 'pingData.timestamp', kind: 'date' },
    },
  },
  location: {
    nested: {
      ...storedFields('string', ['city', 'state', 'country'], 'location'),
      ...storedFields('number', ['latitude', 'longitude'], 'location'),
    },
  },
};

/** How the GraphQL where/order fields map onto stored device documents. */
export function deviceFields(cutoff: () => string): FieldMap {
  const onlineClause = (wantOnline: boolean): Filter =>
    wantOnline ? { 'pingData.timestamp': { $gte: cutoff() } } : { $or: [{ pingData: null }, { 'pingData.timestamp': { $lt: cutoff() } }] };
  return { ...STORED_DEVICE_FIELDS, isOnline: derivedBooleanField(onlineClause, 'pingData.timestamp') };
}
