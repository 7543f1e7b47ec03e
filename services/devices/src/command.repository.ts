import type { Collection, DocumentStore, Stored } from '@pylon/kit';
import { DEVICE_COMMANDS } from './domain/collections.js';
import type { CommandStatus, DeviceCommandRecord } from './domain/command.js';

export type DeviceCommand = Stored<DeviceCommandRecord>;

/** Inserts in parallel slices of this size: the embedded store batches a slice into few transactions. */
const SLICE = 500;

/** The durable command queue of every device of an account, over the documents port. */
export class CommandRepository {
  readonly commands: Collection<DeviceCommandRecord>;

  constructor(store: DocumentStore) {
    this.commands = store.collection<DeviceCommandRecord>(DEVICE_COMMANDS);
  }

  /** Inserts every record (in order within each device); resolves with the stored commands. */
  async queue(tenant: string, records: DeviceCommandRecord[]): Promise<DeviceCommand[]> {
    const out: DeviceCommand[] = [];
    for (let i = 0; i < records.length; i += SLICE) {
      out.push(...(await Promise.all(records.slice(i, i + SLICE).map((r) => this.commands.insert(tenant, r)))));
    }
    return out;
  }

  /** Queued (not yet delivered) commands of one device, oldest first. */
  pendingFor(tenant: string, deviceId: string): Promise<DeviceCommand[]> {
    return this.commands.find(tenant, { deviceId, status: 'queued' }, { sort: { queuedAt: 1, id: 1 } });
  }

  get(tenant: string, id: string): Promise<DeviceCommand | null> {
    return this.commands.findById(tenant, id);
  }

  /** A device's commands, newest first, optionally only some stored statuses. */
  listForDevice(tenant: string, deviceId: string, opts: { statuses?: CommandStatus[]; limit: number }): Promise<DeviceCommand[]> {
    const filter = opts.statuses?.length ? { deviceId, status: { $in: opts.statuses } } : { deviceId };
    return this.commands.find(tenant, filter, { sort: { queuedAt: -1, id: -1 }, limit: opts.limit });
  }

  /** Moves commands to a status with the given timestamps ($set); skips ones that vanished. */
  async setStatus(tenant: string, ids: readonly string[], status: CommandStatus, at: Partial<Pick<DeviceCommandRecord, 'deliveredAt' | 'completedAt' | 'error'>>): Promise<void> {
    await Promise.all(ids.map((id) => this.commands.update(tenant, id, { $set: { status, ...at } })));
  }

  /** Commands still queued or delivered whose expiry passed (the sweep marks them expired). */
  findExpired(tenant: string, nowIso: string): Promise<DeviceCommand[]> {
    return this.commands.find(tenant, { status: { $in: ['queued', 'delivered'] }, expiresAt: { $lte: nowIso } }, { limit: 5000 });
  }

  /** Finished commands older than the retention (the sweep deletes them so the queue stays small). */
  findFinishedBefore(tenant: string, beforeIso: string): Promise<DeviceCommand[]> {
    return this.commands.find(tenant, { status: { $in: ['acknowledged', 'failed', 'expired'] }, queuedAt: { $lt: beforeIso } }, { limit: 5000 });
  }
}
