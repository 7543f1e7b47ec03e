/**
 * Documents port: tenant-scoped collections of JSON documents with Mongo query semantics.
 * Written once by repositories; the embedded adapter (LMDB + mingo) and the MongoDB adapter
 * (mongoose) both pass `src/contract/documents.contract.ts`.
 *
 * Every document belongs to exactly one tenant (account). Every read and write takes the
 * tenant id, so a repository cannot forget scoping. The only cross-tenant read is
 * `findByUnique` on an index declared `global` (API key hashes, device registration keys).
 */

/** Fields the store owns; repositories never set them directly. */
export interface StoredMeta {
  id: string;
  accountId: string;
  /** Starts at 1, +1 on every update; used for optimistic concurrency. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

export type Stored<T> = T & StoredMeta;

/** Mongo-style filter (the subset mingo and MongoDB agree on). */
export type Filter = Record<string, unknown>;
/** Mongo-style sort: field -> 1 | -1, applied in key order. */
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  /**
   * Keyset paging: the sort values of the last document of the previous page, one per field of
   * the normalised sort (the given fields, then `id` unless given). Results start strictly after
   * that position, so pages stay stable while documents are added or removed elsewhere. Exact
   * for fields that hold null/missing or scalars of one type.
   */
  after?: unknown[];
}

export interface IndexSpec {
  name: string;
  /** Dotted field paths; the tuple of their values must be unique. */
  fields: string[];
  /** Unique within a tenant (default) or across all tenants (needed for findByUnique). */
  scope?: 'tenant' | 'global';
}

/**
 * A non-unique, tenant-scoped index. `find` walks it instead of scanning the tenant when the filter
 * gives equality values for a leading run of its fields and the sort is exactly the remaining
 * fields (then `id`) in one direction; `count`, `find` and `deleteMany` use an equality prefix
 * to narrow their scan. Indexed fields must hold scalars (null, boolean, number, string, Date)
 * or be missing; a write that puts an object or array there is refused.
 */
export interface SecondaryIndexSpec {
  name: string;
  fields: string[];
  /**
   * Sparse: documents missing the last field are not indexed (fewer entries to write when most
   * documents lack it). `find` walks a sparse index only when the filter holds
   * `{<last field>: {$exists: true}}` at its top level, so results never depend on it.
   */
  sparse?: boolean;
}

export interface CollectionSpec {
  name: string;
  uniqueIndexes?: IndexSpec[];
  indexes?: SecondaryIndexSpec[];
}

/** Mongo-style update applied by the store: $set and $unset only (whole replacement is `replace`). */
export interface UpdateSpec {
  $set?: Record<string, unknown>;
  $unset?: string[];
}

export interface WriteOptions {
  /** When given, the write fails with VERSION_CONFLICT unless the stored version equals it. */
  expectedVersion?: number;
}

export interface Collection<T extends object> {
  find(tenant: string, filter?: Filter, options?: FindOptions): Promise<Stored<T>[]>;
  findById(tenant: string, id: string): Promise<Stored<T> | null>;
  count(tenant: string, filter?: Filter): Promise<number>;
  /** Inserts a new document; `id` is generated unless given. Fails with DUPLICATE_KEY on a unique index clash. */
  insert(tenant: string, doc: T & { id?: string }): Promise<Stored<T>>;
  /**
   * Inserts documents in order, in as few round trips as the engine allows. On a failure (e.g.
   * DUPLICATE_KEY) the documents before the failing one may be stored, it and the rest are not;
   * the failure is thrown.
   */
  insertMany(tenant: string, docs: Array<T & { id?: string }>): Promise<Stored<T>[]>;
  /** Deletes every document of the tenant matching `filter`; returns how many. */
  deleteMany(tenant: string, filter: Filter): Promise<number>;
  /** Applies $set/$unset to one document; null when it does not exist in this tenant. */
  update(tenant: string, id: string, update: UpdateSpec, options?: WriteOptions): Promise<Stored<T> | null>;
  /**
   * Applies each item's $set/$unset to its document, in order, in as few round trips as the engine
   * allows (bulk edits of thousands of documents); each stored version goes up by one. Answers one
   * entry per item: the document after its update, or null when it does not exist in this tenant.
   * On a failure (DUPLICATE_KEY, an object in an indexed field) the updates before the failing one
   * may be applied, it and the rest are not; the failure is thrown.
   */
  updateMany(tenant: string, items: ReadonlyArray<{ id: string; update: UpdateSpec }>): Promise<Array<Stored<T> | null>>;
  /** Deletes one document; false when it did not exist in this tenant. */
  delete(tenant: string, id: string, options?: WriteOptions): Promise<boolean>;
  /** Cross-tenant lookup through a unique index declared with scope 'global'. */
  findByUnique(index: string, values: unknown[]): Promise<Stored<T> | null>;
}

export interface DocumentStore {
  collection<T extends object>(spec: CollectionSpec): Collection<T>;
  /** Resolves when the backend answers; rejects otherwise (used by /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
