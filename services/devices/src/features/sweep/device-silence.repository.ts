/**
 * The due-time set behind device.offline: which devices are believed online and when each one is
 * offline unless it pings again. Written when a device comes online (the ping that emits
 * device.online), read by the sweep in due order; the entries are rescheduled lazily (a ping does
 * not touch its entry, the sweep moves a due entry to the device's real last ping + window), so
 * the ping path pays nothing for it.
 */
import { insertUnlessPresent, type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import { DEVICE_SILENCE, SYSTEM_TENANT } from '../../domain/collections.js';

export interface SilenceRecord {
  /** The device's account (not `accountId`: the store sets that to the SYSTEM_TENANT). */
  account: string;
  /** Epoch ms at which the device counts as offline unless it pinged since. */
  dueAt: number;
}
export type SilenceEntry = Stored<SilenceRecord>;

export class DeviceSilenceRepository {
  private readonly entries: Collection<SilenceRecord>;

  constructor(store: DocumentStore) {
    this.entries = store.collection<SilenceRecord>(DEVICE_SILENCE);
  }

  /** The device is online until `dueAt` (insert, or move an existing entry). */
  async watch(account: string, deviceId: string, dueAt: number): Promise<void> {
    const moved = await this.entries.update(SYSTEM_TENANT, deviceId, { $set: { account, dueAt } });
    if (moved) return;
    const inserted = await insertUnlessPresent(this.entries, SYSTEM_TENANT, { id: deviceId, account, dueAt });
    // null: a concurrent first watch inserted it between the two calls: move theirs.
    if (!inserted) await this.entries.update(SYSTEM_TENANT, deviceId, { $set: { account, dueAt } });
  }

  /** Entries due at `now`, earliest first (an index walk that stops past `now`). */
  due(now: number, limit: number): Promise<SilenceEntry[]> {
    return this.entries.find(SYSTEM_TENANT, { dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit });
  }

  /** Moves a due entry read at `version`; false when it changed meanwhile (a ping or another sweeper). */
  async postpone(entry: SilenceEntry, dueAt: number): Promise<boolean> {
    return (await this.entries.update(SYSTEM_TENANT, entry.id, { $set: { dueAt } }, { expectedVersion: entry.version }).catch(conflictAsNull)) !== null;
  }

  /** Ends the watch of an entry read at `version`; false when it changed meanwhile: whoever removes it announces. */
  async settle(entry: SilenceEntry): Promise<boolean> {
    return this.entries.delete(SYSTEM_TENANT, entry.id, { expectedVersion: entry.version }).catch((e: unknown) => {
      if ((e as { code?: string })?.code === 'VERSION_CONFLICT') return false;
      throw e;
    });
  }
}

function conflictAsNull(e: unknown): null {
  if ((e as { code?: string })?.code === 'VERSION_CONFLICT') return null;
  throw e;
}
