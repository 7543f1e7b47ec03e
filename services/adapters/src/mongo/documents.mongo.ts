/**
 * MongoDB documents adapter. One MongoDB collection per documents collection, accessed through
 * the native driver collection of a mongoose Connection (exact MongoDB semantics, no schema).
 *
 * - Each document is stored as-is plus the store's meta fields; MongoDB's own `_id` is an
 *   ObjectId that never leaves the adapter. A unique index {accountId, id} ('tenant_id') makes
 *   ids unique per tenant and serves every by-id read and write.
 * - Unique indexes are MongoDB unique indexes named `uniq_<name>`, prefixed with accountId for
 *   tenant scope and partial on `$exists: true` for every field (documents missing a field are
 *   not indexed, matching the embedded adapter). Indexes are matched by key; serving processes
 *   only create missing ones, the migrations job (`indexes: 'migrate'`) also drops and rebuilds
 *   (indexes.mongo.ts). A failed build is retried by the next operation.
 * - Optimistic concurrency: the expected version is part of the update/delete filter.
 * - Bounded waits: server selection, connect and socket timeouts and a pool limit; an outage or
 *   an election answers UNAVAILABLE (503) within them (errors.mongo.ts).
 */
import mongoose from 'mongoose';
import type { Collection, CollectionSpec, DocumentStore, Filter, FindOptions, IndexSpec, Stored, UpdateSpec, WriteOptions } from '@pylon/kit/ports/documents';
import {
  afterFilter,
  andFilters,
  assertIndexedSet,
  collectionHandles,
  indexReadiness,
  indexValuesOf,
  validateSecondaryIndexes,
} from '../documents/documents.indexes.js';
import {
  assertExpectedVersion,
  assertFilter,
  assertTenant,
  checkUniqueLookup,
  duplicateKey,
  indexScope,
  isValidKeyString,
  newId,
  normalizeFindOptions,
  prepareInsert,
  prepareUpdate,
  resolveInsertId,
  versionConflict,
  type Doc,
} from '../documents/documents.shared.js';
import { mapUnavailable } from './errors.mongo.js';
import { ensureMongoIndexes, type IndexMode, type WantedIndex } from './indexes.mongo.js';

export interface MongoDocumentStoreOptions {
  /** mongodb:// or mongodb+srv:// connection string. */
  url: string;
  /** Database name; defaults to the one in the URL. */
  dbName?: string;
  /**
   * 'create' (serving processes, default): create missing indexes only, never drop, so replicas
   * of two versions keep each other's indexes during a rolling deploy. 'migrate' (the migrations
   * job only): also drop indexes no declared one matches and rebuild changed ones.
   */
  indexes?: IndexMode;
  /** How long an operation waits for a usable server before answering UNAVAILABLE (default 5000). */
  serverSelectionTimeoutMS?: number;
  /** How long a socket may stay silent before the operation fails (default 30000). */
  socketTimeoutMS?: number;
  /** Connections per server (default 20). */
  maxPoolSize?: number;
}

/** Driver settings the URL may also carry (the URL wins). */
const DRIVER_DEFAULTS = { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, socketTimeoutMS: 30000, maxPoolSize: 20, waitQueueTimeoutMS: 5000 };
const inUrl = (url: string, key: string): boolean => new RegExp(`[?&]${key}=`, 'i').test(url);

type MongoDoc = mongoose.mongo.Document;
type NativeCollection = mongoose.mongo.Collection<MongoDoc>;

const TENANT_ID_INDEX = 'tenant_id';
const UNIQUE_PREFIX = 'uniq_';
/** Secondary indexes: {accountId, ...fields, id}, so equality prefix + sort + id paging is one index walk. */
const SECONDARY_PREFIX = 'idx_';
const NO_ID = { _id: 0 } as const;

interface ResolvedIndex extends IndexSpec {
  scope: 'tenant' | 'global';
}

function errorCode(e: unknown): unknown {
  return typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
}

function isDuplicateKeyError(e: unknown): boolean {
  const code = errorCode(e);
  return code === 11000 || code === 11001;
}

/** The spec's index name from a duplicate-key error ("... index: uniq_slug dup key: ..."). */
function indexOfDuplicate(e: unknown, logicalByIndex: Map<string, string>): string | undefined {
  const msg =
    typeof e === 'object' && e !== null ? String((e as { errmsg?: unknown; message?: unknown }).errmsg ?? (e as { message?: unknown }).message ?? '') : '';
  const m = /index: (\S+)/.exec(msg);
  const raw = m?.[1];
  if (!raw) return undefined;
  const logical = logicalByIndex.get(raw);
  if (logical) return logical;
  if (raw === TENANT_ID_INDEX) return 'id';
  return raw.startsWith(UNIQUE_PREFIX) ? raw.slice(UNIQUE_PREFIX.length) : undefined;
}

/** A failed index build: stored duplicates are named, an outage answers UNAVAILABLE. */
function mapReadyError(e: unknown, collection: string): unknown {
  if (isDuplicateKeyError(e)) return new Error(`documents: cannot build a unique index on '${collection}': stored documents share a value`, { cause: e });
  return mapUnavailable(e);
}

/** Every index a collection declares, as MongoDB indexes (tenant id, unique, secondary). */
function wantedIndexes(unique: ResolvedIndex[], secondary: Array<{ name: string; fields: string[]; sparse?: boolean }>): WantedIndex[] {
  const out: WantedIndex[] = [
    {
      logical: 'id',
      name: TENANT_ID_INDEX,
      key: new Map<string, 1>([
        ['accountId', 1],
        ['id', 1],
      ]),
      unique: true,
    },
  ];
  for (const idx of unique) {
    out.push({
      logical: idx.name,
      name: `${UNIQUE_PREFIX}${idx.name}`,
      key: indexKey(idx),
      unique: true,
      partialFilterExpression: Object.fromEntries(idx.fields.map((f) => [f, { $exists: true }])),
    });
  }
  for (const idx of secondary) {
    const key = new Map<string, 1>([['accountId', 1]]);
    for (const f of idx.fields) key.set(f, 1);
    key.set('id', 1);
    const last = idx.fields[idx.fields.length - 1] as string;
    out.push({
      logical: idx.name,
      name: `${SECONDARY_PREFIX}${idx.name}`,
      key,
      unique: false,
      ...(idx.sparse ? { partialFilterExpression: { [last]: { $exists: true } } } : {}),
    });
  }
  return out;
}

/** The tenant condition always holds, whatever the caller's filter says about accountId. */
function scoped(tenant: string, filter: Filter | undefined): Doc {
  if (!filter || Object.keys(filter).length === 0) return { accountId: tenant };
  if (Object.prototype.hasOwnProperty.call(filter, 'accountId')) return { $and: [{ accountId: tenant }, filter] };
  return { accountId: tenant, ...filter };
}

function indexKey(idx: ResolvedIndex): Map<string, 1> {
  const key = new Map<string, 1>();
  if (idx.scope === 'tenant') key.set('accountId', 1);
  for (const f of idx.fields) key.set(f, 1);
  return key;
}

export async function createMongoDocumentStore(opts: MongoDocumentStoreOptions): Promise<DocumentStore> {
  const driver: Record<string, number> = {};
  for (const [k, v] of Object.entries({
    ...DRIVER_DEFAULTS,
    ...(opts.serverSelectionTimeoutMS !== undefined ? { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS } : {}),
    ...(opts.socketTimeoutMS !== undefined ? { socketTimeoutMS: opts.socketTimeoutMS } : {}),
    ...(opts.maxPoolSize !== undefined ? { maxPoolSize: opts.maxPoolSize } : {}),
  })) {
    if (!inUrl(opts.url, k)) driver[k] = v;
  }
  const indexMode: IndexMode = opts.indexes ?? 'create';
  const conn = mongoose.createConnection(opts.url, {
    ...(opts.dbName ? { dbName: opts.dbName } : {}),
    ...driver,
    ignoreUndefined: true,
    autoIndex: false,
    autoCreate: false,
  });
  try {
    await conn.asPromise();
  } catch (e) {
    await conn.close().catch(() => undefined);
    throw mapUnavailable(e);
  }
  const db = conn.db;
  if (!db) {
    await conn.close();
    throw new Error('documents: the database connection has no database');
  }
  let closed = false;
  const checkOpen = (): void => {
    if (closed) throw new Error('documents: the store is closed');
  };

  // Function declarations are hoisted: the handle cache can wrap makeCollection here.
  const openCollection = collectionHandles(makeCollection);
  function makeCollection(spec: CollectionSpec): Collection<object> {
    const name = spec.name;
    const indexes: ResolvedIndex[] = (spec.uniqueIndexes ?? []).map((i) => ({ name: i.name, fields: [...i.fields], scope: indexScope(i) }));
    const c: NativeCollection = db!.collection<MongoDoc>(name);
    const secondary = validateSecondaryIndexes(spec);
    const checkIndexed = (doc: Doc): void => {
      for (const idx of secondary) indexValuesOf(doc, idx, name);
    };

    /** MongoDB index name -> the spec's index name (for duplicate-key errors), once built. */
    let logicalByIndex = new Map<string, string>();
    const readiness = indexReadiness(async () => {
      logicalByIndex = await ensureMongoIndexes(c, wantedIndexes(indexes, secondary), indexMode);
    });

    async function begin(): Promise<void> {
      checkOpen();
      if (!readiness.ready) {
        try {
          await readiness.await();
        } catch (e) {
          throw mapReadyError(e, name);
        }
      }
      checkOpen();
    }

    function mapWriteError(e: unknown): unknown {
      return isDuplicateKeyError(e) ? duplicateKey(name, indexOfDuplicate(e, logicalByIndex)) : mapUnavailable(e);
    }
    /** Every operation's driver errors: an outage answers UNAVAILABLE. */
    async function guarded<T>(op: () => Promise<T>): Promise<T> {
      try {
        return await op();
      } catch (e) {
        throw mapWriteError(e);
      }
    }

    async function currentVersion(tenant: string, id: string): Promise<number | undefined> {
      const cur = await guarded(() => c.findOne({ accountId: tenant, id }, { projection: { _id: 0, version: 1 } }));
      return cur ? (cur.version as number) : undefined;
    }

    const coll: Collection<object> = {
      async find(tenant: string, filter?: Filter, options?: FindOptions): Promise<Stored<object>[]> {
        assertTenant(tenant);
        assertFilter(filter);
        const o = normalizeFindOptions(options);
        await begin();
        if (o.limit === 0) return [];
        const where = options?.after ? andFilters(filter, afterFilter(o.sort, options.after)) : filter;
        const cursor = c.find(scoped(tenant, where), {
          projection: NO_ID,
          sort: o.sort,
          ...(o.skip > 0 ? { skip: o.skip } : {}),
          ...(o.limit !== undefined ? { limit: o.limit } : {}),
        });
        return (await guarded(() => cursor.toArray())) as unknown as Stored<object>[];
      },

      async findById(tenant: string, id: string): Promise<Stored<object> | null> {
        assertTenant(tenant);
        if (!isValidKeyString(id)) return null;
        await begin();
        return (await guarded(() => c.findOne({ accountId: tenant, id }, { projection: NO_ID }))) as Stored<object> | null;
      },

      async count(tenant: string, filter?: Filter): Promise<number> {
        assertTenant(tenant);
        assertFilter(filter);
        await begin();
        return guarded(() => c.countDocuments(scoped(tenant, filter)));
      },

      async insert(tenant: string, doc: object & { id?: string }): Promise<Stored<object>> {
        assertTenant(tenant);
        const id = resolveInsertId(doc, newId);
        const stored = prepareInsert(tenant, doc, id, new Date().toISOString());
        checkIndexed(stored);
        await begin();
        try {
          // The driver adds `_id` to the object it is given: hand it a copy.
          await c.insertOne({ ...stored });
        } catch (e) {
          throw mapWriteError(e);
        }
        return stored as Stored<object>;
      },

      async insertMany(tenant: string, input: Array<object & { id?: string }>): Promise<Stored<object>[]> {
        assertTenant(tenant);
        if (!Array.isArray(input)) throw new Error('documents: insertMany takes an array');
        const now = new Date().toISOString();
        const stored = input.map((doc) => {
          const s = prepareInsert(tenant, doc, resolveInsertId(doc, newId), now);
          checkIndexed(s);
          return s;
        });
        await begin();
        if (stored.length === 0) return [];
        try {
          // Ordered: a failure stops the batch there, as the port says.
          await c.insertMany(
            stored.map((d) => ({ ...d })),
            { ordered: true },
          );
        } catch (e) {
          throw mapWriteError(e);
        }
        return stored as Stored<object>[];
      },

      async deleteMany(tenant: string, filter: Filter): Promise<number> {
        assertTenant(tenant);
        assertFilter(filter);
        await begin();
        return (await guarded(() => c.deleteMany(scoped(tenant, filter)))).deletedCount;
      },

      async update(tenant: string, id: string, update: UpdateSpec, options?: WriteOptions): Promise<Stored<object> | null> {
        assertTenant(tenant);
        const ops = prepareUpdate(update);
        const expected = options?.expectedVersion;
        assertExpectedVersion(expected);
        if (!isValidKeyString(id)) return null;
        await begin();
        assertIndexedSet(secondary, ops.setObject, name);
        const filter: Doc = { accountId: tenant, id };
        if (expected !== undefined) filter.version = expected;
        const modifier: Doc = { $set: { ...ops.setObject, updatedAt: new Date().toISOString() }, $inc: { version: 1 } };
        if (ops.unsetPaths.length > 0) modifier.$unset = Object.fromEntries(ops.unsetPaths.map((p) => [p, '']));
        let after: MongoDoc | null;
        try {
          after = await c.findOneAndUpdate(filter, modifier, { returnDocument: 'after', projection: NO_ID });
        } catch (e) {
          throw mapWriteError(e);
        }
        if (after) return after as Stored<object>;
        if (expected !== undefined) {
          const actual = await currentVersion(tenant, id);
          if (actual !== undefined) throw versionConflict(name, id, expected, actual);
        }
        return null;
      },

      async delete(tenant: string, id: string, options?: WriteOptions): Promise<boolean> {
        assertTenant(tenant);
        const expected = options?.expectedVersion;
        assertExpectedVersion(expected);
        if (!isValidKeyString(id)) return false;
        await begin();
        const filter: Doc = { accountId: tenant, id };
        if (expected !== undefined) filter.version = expected;
        const r = await guarded(() => c.deleteOne(filter));
        if (r.deletedCount === 1) return true;
        if (expected !== undefined) {
          const actual = await currentVersion(tenant, id);
          if (actual !== undefined) throw versionConflict(name, id, expected, actual);
        }
        return false;
      },

      async findByUnique(index: string, values: unknown[]): Promise<Stored<object> | null> {
        const idx = indexes.find((i) => i.name === index);
        if (!idx) throw new Error(`documents: '${name}' has no unique index '${index}'`);
        if (idx.scope !== 'global') throw new Error(`documents: index '${index}' of '${name}' is tenant-scoped; findByUnique needs scope 'global'`);
        checkUniqueLookup(idx, values);
        await begin();
        const q: Doc = {};
        idx.fields.forEach((f, i) => {
          q[f] = { $eq: values[i], $exists: true };
        });
        return (await guarded(() => c.findOne(q, { projection: NO_ID }))) as Stored<object> | null;
      },
    };
    return coll;
  }

  return {
    collection<T extends object>(spec: CollectionSpec): Collection<T> {
      checkOpen();
      return openCollection(spec) as unknown as Collection<T>;
    },
    async ping(): Promise<void> {
      checkOpen();
      try {
        await db.command({ ping: 1 });
      } catch (e) {
        throw mapUnavailable(e);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await conn.close();
    },
  };
}
