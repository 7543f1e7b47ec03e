import { notFound, type Collection, type DocumentStore, type Filter, type FindOptions, type Stored } from '@pylon/kit';
import { DEVICE_GROUPS, DEVICES, DISPLAY_COMMANDS } from './domain/collections.js';
import { DEFAULT_DISPLAY_COMMANDS, type DeviceGroupRecord, type DeviceRecord, type DisplayCommandRecord } from './domain/device.js';

export type Device = Stored<DeviceRecord>;
export type DeviceGroup = Stored<DeviceGroupRecord>;
export type DisplayCommand = Stored<DisplayCommandRecord>;

/** Devices, groups and display commands of one account, over the documents port. */
export class DeviceRepository {
  readonly devices: Collection<DeviceRecord>;
  readonly groups: Collection<DeviceGroupRecord>;
  readonly commands: Collection<DisplayCommandRecord>;

  constructor(store: DocumentStore) {
    this.devices = store.collection<DeviceRecord>(DEVICES);
    this.groups = store.collection<DeviceGroupRecord>(DEVICE_GROUPS);
    this.commands = store.collection<DisplayCommandRecord>(DISPLAY_COMMANDS);
  }

  findDevices(tenant: string, filter: Filter, options: FindOptions): Promise<Device[]> {
    return this.devices.find(tenant, filter, options);
  }

  async getDevice(tenant: string, id: string): Promise<Device> {
    const d = await this.devices.findById(tenant, id);
    if (!d) throw notFound('device', id);
    return d;
  }

  /** One scan for many ids (bulk commands): never one round trip per device. */
  findByIds(tenant: string, ids: readonly string[]): Promise<Device[]> {
    return ids.length ? this.devices.find(tenant, { id: { $in: [...ids] } }, {}) : Promise.resolve([]);
  }

  /** Across accounts (the player authenticates with the key alone); callers check the account when they have one. */
  findByRegistrationKey(key: string): Promise<Device | null> {
    return this.devices.findByUnique('registrationKey', [key]);
  }

  listGroups(tenant: string): Promise<DeviceGroup[]> {
    return this.groups.find(tenant, {}, { sort: { name: 1, id: 1 } });
  }

  async getGroup(tenant: string, id: string): Promise<DeviceGroup> {
    const g = await this.groups.findById(tenant, id);
    if (!g) throw notFound('device group', id);
    return g;
  }

  /** The command names the account accepts (its display commands). */
  async knownCommands(tenant: string): Promise<Set<string>> {
    return new Set((await this.listCommands(tenant)).map((c) => c.command));
  }

  /** The account's display commands, seeded with the defaults on first use. */
  async listCommands(tenant: string): Promise<DisplayCommand[]> {
    const existing = await this.commands.find(tenant, {}, { sort: { createdAt: 1, id: 1 } });
    if (existing.length) return existing;
    for (const c of DEFAULT_DISPLAY_COMMANDS) {
      await this.commands.insert(tenant, c).catch((e: unknown) => {
        // A concurrent first call seeded it already.
        if (!(e instanceof Error && 'code' in e && (e as { code: string }).code === 'DUPLICATE_KEY')) throw e;
      });
    }
    return this.commands.find(tenant, {}, { sort: { createdAt: 1, id: 1 } });
  }
}
