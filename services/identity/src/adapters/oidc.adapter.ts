/**
 * oidc-provider's persistence (sessions, interactions, grants, authorization codes, refresh
 * tokens) over the documents port, so OAuth state survives restarts and is shared by every
 * process on the same store. One collection, `oidc`, in the system tenant; a document per
 * artifact, keyed `<model>:<id>`. The payload is kept as JSON text: its keys (resource URIs,
 * claim names) are not all valid document field names. Expiry is honoured on every read, and
 * expired documents are swept periodically.
 */
import type { Collection, DocumentStore } from '@pylon/kit';
import { SYSTEM_TENANT } from '../domain/records.js';

interface OidcRecord {
  model: string;
  payload: string;
  /** Epoch milliseconds; null: no expiry. */
  expiresAt: number | null;
  /** Session uid (Session documents only). */
  uid?: string;
  /** Device flow user code (documents that have one). */
  userCode?: string;
  grantId?: string;
  /** Epoch seconds of consumption (authorization codes, refresh tokens on rotation). */
  consumed?: number;
}

export const OIDC = {
  name: 'oidc',
  uniqueIndexes: [
    { name: 'uid', fields: ['uid'], scope: 'global' as const },
    { name: 'userCode', fields: ['userCode'], scope: 'global' as const },
  ],
};

type Payload = Record<string, unknown> & { uid?: string; userCode?: string; grantId?: string; consumed?: number };

export interface OidcAdapterFactory {
  (model: string): OidcDocumentsAdapter;
  /** Deletes expired documents; returns how many. */
  sweep(now?: number): Promise<number>;
}

export class OidcDocumentsAdapter {
  constructor(
    private readonly model: string,
    private readonly col: Collection<OidcRecord>,
    private readonly now: () => number,
  ) {}

  private key(id: string) {
    return `${this.model}:${id}`;
  }

  private live(doc: OidcRecord | null): Payload | undefined {
    if (!doc || (doc.expiresAt !== null && doc.expiresAt <= this.now())) return undefined;
    const payload = JSON.parse(doc.payload) as Payload;
    return doc.consumed ? { ...payload, consumed: doc.consumed } : payload;
  }

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const record: OidcRecord = {
      model: this.model,
      payload: JSON.stringify(payload),
      expiresAt: typeof expiresIn === 'number' ? this.now() + expiresIn * 1000 : null,
      ...(this.model === 'Session' && payload.uid ? { uid: payload.uid } : {}),
      ...(payload.userCode ? { userCode: payload.userCode } : {}),
      ...(payload.grantId ? { grantId: payload.grantId } : {}),
      ...(payload.consumed ? { consumed: payload.consumed } : {}),
    };
    const key = this.key(id);
    const absent = (['uid', 'userCode', 'grantId', 'consumed'] as const).filter((f) => record[f] === undefined);
    const updated = await this.col.update(SYSTEM_TENANT, key, { $set: { ...record }, ...(absent.length ? { $unset: [...absent] } : {}) });
    if (!updated) await this.col.insert(SYSTEM_TENANT, { id: key, ...record });
  }

  async find(id: string): Promise<Payload | undefined> {
    return this.live(await this.col.findById(SYSTEM_TENANT, this.key(id)));
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const doc = await this.col.findByUnique('uid', [uid]);
    return doc?.model === this.model ? this.live(doc) : undefined;
  }

  async findByUserCode(userCode: string): Promise<Payload | undefined> {
    const doc = await this.col.findByUnique('userCode', [userCode]);
    return doc?.model === this.model ? this.live(doc) : undefined;
  }

  async consume(id: string): Promise<void> {
    await this.col.update(SYSTEM_TENANT, this.key(id), { $set: { consumed: Math.floor(this.now() / 1000) } });
  }

  async destroy(id: string): Promise<void> {
    await this.col.delete(SYSTEM_TENANT, this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const doc of await this.col.find(SYSTEM_TENANT, { grantId })) await this.col.delete(SYSTEM_TENANT, doc.id);
  }
}

export function oidcAdapterFactory(store: DocumentStore, now: () => number = Date.now): OidcAdapterFactory {
  const col = store.collection<OidcRecord>(OIDC);
  const factory = ((model: string) => new OidcDocumentsAdapter(model, col, now)) as OidcAdapterFactory;
  factory.sweep = async (at = now()) => {
    const expired = await col.find(SYSTEM_TENANT, { expiresAt: { $ne: null, $lte: at } }, { limit: 5000 });
    for (const doc of expired) await col.delete(SYSTEM_TENANT, doc.id);
    return expired.length;
  };
  return factory;
}
