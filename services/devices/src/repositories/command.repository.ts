import type { Collection, DocumentStore, Stored } from '@pylon/kit';
import { DEVICE_COMMANDS } from '../domain/collections.js';
import type { CommandStatus, DeviceCommandRecord } from '../domain/command.js';

export type DeviceCommand = Stored<DeviceCommandRecord>;

/** Inserts in parallel slices of this size: the embedded store batches a slice into few transactions. */
const SLICE = 500;
/** The most commands one sweep pass expires or prunes per account (the next pass takes the rest). */
const SWEEP_BATCH = 5000;

/** A device's queued commands, oldest first: the read every ping makes (served by DEVICE_COMMANDS' byDevice index). */
export const pendingQuery = (deviceId: string) => ({ filter: { deviceId, status: 'queued' }, sort: { queuedAt: 1, id: 1 } as const });

/** The durable command queue of every device of an account, over the documents port. */
export class CommandRepository {
  private readonly commands: Collection<DeviceCommandRecord>;

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
    const { filter, sort } = pendingQuery(deviceId);
    return this.commands.find(tenant, filter, { sort });
  }

  get(tenant: string, id: string): Promise<DeviceCommand | null> {
    return this.commands.findById(tenant, id);
  }

  /** A device's commands, newest first, optionally only some stored statuses. */
  listForDevice(tenant: string, deviceId: string, opts: { statuses?: CommandStatus[]; limit: number }): Promise<DeviceCommand[]> {
    const filter = opts.statuses?.length ? { deviceId, status: { $in: opts.statuses } } : { deviceId };
    return this.commands.find(tenant, filter, { sort: { queuedAt: -1, id: -1 }, limit: opts.limit });
  }

  /**
   * Hands a queued command to a ping (delivered), or marks it expired when its time passed, naming
   * the version read: of two racing pings only one succeeds, the other gets VERSION_CONFLICT.
   */
  claimForDelivery(tenant: string, command: DeviceCommand, at: string, expired: boolean): Promise<DeviceCommand | null> {
    return this.commands.update(
      tenant,
      command.id,
      { $set: expired ? { status: 'expired', completedAt: at } : { status: 'delivered', deliveredAt: at } },
      { expectedVersion: command.version },
    );
  }

  /** Records the player's outcome (acknowledged / failed) against the version read (VERSION_CONFLICT otherwise). */
  complete(tenant: string, command: DeviceCommand, status: CommandStatus, at: string, error: string | null): Promise<DeviceCommand | null> {
    return this.commands.update(
      tenant,
      command.id,
      { $set: { status, completedAt: at, error, ...(command.deliveredAt ? {} : { deliveredAt: at }) } },
      { expectedVersion: command.version },
    );
  }

  /** Marks commands still queued or delivered whose expiry passed as expired; resolves with how many. */
  async expireOverdue(tenant: string, nowIso: string): Promise<DeviceCommand[]> {
    const overdue = await this.commands.find(tenant, { status: { $in: ['queued', 'delivered'] }, expiresAt: { $lte: nowIso } }, { limit: SWEEP_BATCH });
    await Promise.all(overdue.map((c) => this.commands.update(tenant, c.id, { $set: { status: 'expired', completedAt: nowIso } })));
    return overdue;
  }

  /** Deletes finished commands queued before the cutoff, so the queue stays small; resolves with how many. */
  async pruneFinishedBefore(tenant: string, beforeIso: string): Promise<number> {
    const finished = await this.commands.find(
      tenant,
      { status: { $in: ['acknowledged', 'failed', 'expired'] }, queuedAt: { $lt: beforeIso } },
      { limit: SWEEP_BATCH },
    );
    await Promise.all(finished.map((c) => this.commands.delete(tenant, c.id)));
    return finished.length;
  }
}
