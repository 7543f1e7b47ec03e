import type { Collection, DocumentStore, Stored } from '@pylon/kit';
import { DEVICE_PAIRINGS, SYSTEM_TENANT } from '../../domain/collections.js';
import type { PairingRecord } from '../../domain/pairing.js';

export type Pairing = Stored<PairingRecord>;

/** Pairing requests over the documents port (shared by every replica), under the system tenant. */
export class PairingRepository {
  private readonly pairings: Collection<PairingRecord>;

  constructor(store: DocumentStore) {
    this.pairings = store.collection<PairingRecord>(DEVICE_PAIRINGS);
  }

  /** Stores a new pending request under its code; DUPLICATE_KEY when the code is taken (the caller draws another). */
  add(record: PairingRecord): Promise<Pairing> {
    return this.pairings.insert(SYSTEM_TENANT, { ...record, id: record.code });
  }

  byCode(code: string): Promise<Pairing | null> {
    return this.pairings.findById(SYSTEM_TENANT, code);
  }

  bySecretHash(secretHash: string): Promise<Pairing | null> {
    return this.pairings.findByUnique('secretHash', [secretHash]);
  }

  /** Moves a request on, naming the version read: of two racing claims one gets VERSION_CONFLICT. */
  change(p: Pairing, set: Partial<PairingRecord>): Promise<Pairing | null> {
    return this.pairings.update(SYSTEM_TENANT, p.id, { $set: set }, { expectedVersion: p.version });
  }

  remove(p: Pairing): Promise<boolean> {
    return this.pairings.delete(SYSTEM_TENANT, p.id);
  }

  /** Deletes every request past its expiry (a code then becomes free again). */
  pruneExpired(nowIso: string): Promise<number> {
    return this.pairings.deleteMany(SYSTEM_TENANT, { expiresAt: { $lt: nowIso } });
  }
}
