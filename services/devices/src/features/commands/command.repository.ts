import { listQuery, lowerCaseEnumField, storedFields, type Collection, type DocumentStore, type FieldMap, type Filter, type Stored } from '@pylon/kit';
import { DEVICE_COMMANDS } from '../../domain/collections.js';
import { COMMAND_STATUSES, type CommandStatus, type DeviceCommandRecord } from '../../domain/command.js';

export type DeviceCommand = Stored<DeviceCommandRecord>;

/**
 * Records per insertMany: one write transaction (embedded) or one round trip (Mongo) each; the
 * slices of one call go out together, so the embedded store commits them in one flush.
 */
const SLICE = 1000;
/** The most commands one sweep pass expires or prunes per account (the next pass takes the rest). */
const SWEEP_BATCH = 5000;

/** A device's queued commands, oldest first: the read every ping makes (served by DEVICE_COMMANDS' byDevice index). */
export const pendingQuery = (deviceId: string) => ({ filter: { deviceId, status: 'queued' }, sort: { queuedAt: 1, id: 1 } as const });

/**
 * The stored commands whose effective status (effectiveStatus at `nowIso`) is one of `statuses`:
 * a queued or delivered command past its expiry counts as expired.
 */
export function statusClause(statuses: readonly string[], nowIso: string): Filter {
  const live = { $in: ['queued', 'delivered'] };
  const parts: Filter[] = statuses.map((s) =>
    s === 'expired'
      ? { $or: [{ status: 'expired' }, { status: live, expiresAt: { $lte: nowIso } }] }
      : s === 'queued' || s === 'delivered'
        ? { status: s, expiresAt: { $gt: nowIso } }
        : { status: s },
  );
  return parts.length === 0 ? { id: { $in: [] } } : parts.length === 1 ? parts[0]! : { $or: parts };
}

/** The command fields stored as they are (built once per process, not per listing). */
const STORED_COMMAND_FIELDS: FieldMap = storedFields('string', ['id', 'command', 'arg', 'error']);

/** How the GraphQL where/order fields of DeviceCommand map onto stored commands (status: the effective one at `nowIso`). */
export function commandFields(nowIso: string): FieldMap {
  return {
    ...STORED_COMMAND_FIELDS,
    status: lowerCaseEnumField(COMMAND_STATUSES, (values) => statusClause(values, nowIso), 'status'),
    queuedOn: { path: 'queuedAt', kind: 'date' },
    deliveredOn: { path: 'deliveredAt', kind: 'date' },
    completedOn: { path: 'completedAt', kind: 'date' },
    expiresOn: { path: 'expiresAt', kind: 'date' },
  };
}

/** The durable command queue of every device of an account, over the documents port. */
export class CommandRepository {
  private readonly commands: Collection<DeviceCommandRecord>;

  constructor(store: DocumentStore) {
    this.commands = store.collection<DeviceCommandRecord>(DEVICE_COMMANDS);
  }

  /**
   * Inserts every record (in order within each device); resolves with the stored commands, in the
   * order given. Batched (insertMany per slice, never one write per command): on a failure some
   * records may be stored and the failure is thrown, as with the inserts one by one before.
   */
  async queue(tenant: string, records: DeviceCommandRecord[]): Promise<DeviceCommand[]> {
    const slices: DeviceCommandRecord[][] = [];
    for (let i = 0; i < records.length; i += SLICE) slices.push(records.slice(i, i + SLICE));
    return (await Promise.all(slices.map((s) => this.commands.insertMany(tenant, s)))).flat();
  }

  /** Queued (not yet delivered) commands of one device, oldest first. */
  pendingFor(tenant: string, deviceId: string): Promise<DeviceCommand[]> {
    const { filter, sort } = pendingQuery(deviceId);
    return this.commands.find(tenant, filter, { sort });
  }

  get(tenant: string, id: string): Promise<DeviceCommand | null> {
    return this.commands.findById(tenant, id);
  }

  /**
   * A device's commands, newest first unless `order` says otherwise: only those of the given
   * effective statuses (at `nowIso`), filtered by `where`, at most `limit`.
   */
  async listForDevice(
    tenant: string,
    deviceId: string,
    q: { statuses?: readonly CommandStatus[] | null; where?: unknown; order?: unknown; limit: number; nowIso: string },
  ): Promise<DeviceCommand[]> {
    const { filter, options } = listQuery({ where: q.where, order: q.order, limit: q.limit }, commandFields(q.nowIso), {
      clauses: [{ deviceId }, ...(q.statuses?.length ? [statusClause(q.statuses, q.nowIso)] : [])],
      fallbackSort: { queuedAt: -1, id: -1 },
    });
    return this.commands.find(tenant, filter, options);
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
