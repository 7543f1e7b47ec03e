/**
 * The OAuth server's secrets record (one per deployment, in the system tenant), sealed: keys.ts
 * reads it or stores the first one, never the collection.
 */
import { AppError, type Collection, type DocumentStore } from '@pylon/kit';
import { SYSTEM_TENANT } from '../../domain/records.js';

export interface OAuthKeysRecord {
  /** Private JWKs as JSON text. */
  signingKeys: string;
  cookieKeys: string[];
}

const ID = 'oauth-keys';

export class OAuthKeysRepository {
  private readonly keys: Collection<OAuthKeysRecord>;

  constructor(store: DocumentStore) {
    this.keys = store.collection<OAuthKeysRecord>({ name: 'oauthKeys' });
  }

  /** The stored secrets, or null before the first start. */
  find(): Promise<OAuthKeysRecord | null> {
    return this.keys.findById(SYSTEM_TENANT, ID);
  }

  /** Stores `record` unless a concurrent first start stored its own first: answers the one that is kept. */
  async storeFirst(record: OAuthKeysRecord): Promise<OAuthKeysRecord> {
    try {
      await this.keys.insert(SYSTEM_TENANT, { id: ID, ...record });
      return record;
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'DUPLICATE_KEY')) throw e;
      const winner = await this.keys.findById(SYSTEM_TENANT, ID);
      if (!winner) throw e;
      return winner;
    }
  }
}
