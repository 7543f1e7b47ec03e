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
 *
 * This file connects and hands collections out; documents.mongo-collection.ts holds one
 * collection's reads and writes, indexes.mongo.ts the indexes each declares.
 */
import mongoose from 'mongoose';
import type { Collection, CollectionSpec, DocumentStore } from '@pylon/kit/ports/documents';
import { collectionHandles } from '../documents/documents.indexes.js';
import { asCollection } from '../documents/documents.shared.js';
import { MongoCollection } from './documents.mongo-collection.js';
import { mapUnavailable } from './errors.mongo.js';
import type { IndexMode } from './indexes.mongo.js';

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

/** The driver settings: the defaults and the options given, where the URL does not set them. */
function driverSettings(opts: MongoDocumentStoreOptions): Record<string, number> {
  const driver: Record<string, number> = {};
  for (const [k, v] of Object.entries({
    ...DRIVER_DEFAULTS,
    ...(opts.serverSelectionTimeoutMS !== undefined ? { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS } : {}),
    ...(opts.socketTimeoutMS !== undefined ? { socketTimeoutMS: opts.socketTimeoutMS } : {}),
    ...(opts.maxPoolSize !== undefined ? { maxPoolSize: opts.maxPoolSize } : {}),
  })) {
    if (!inUrl(opts.url, k)) driver[k] = v;
  }
  return driver;
}

export async function createMongoDocumentStore(opts: MongoDocumentStoreOptions): Promise<DocumentStore> {
  const driver = driverSettings(opts);
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

  const openCollection = collectionHandles((spec) => asCollection(new MongoCollection(db.collection(spec.name), spec, indexMode, checkOpen)));

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
