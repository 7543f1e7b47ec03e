/**
 * Embedded documents adapter: one LMDB environment holds every collection; queries run through
 * mingo. Layout (three named databases in one env, so one write transaction covers them all):
 *
 * - `docs`: [collection, accountId, id] -> document. A tenant's documents of a collection are one
 *   contiguous key range, in id order.
 * - `uniq`: [collection, index, 't', accountId, tuple] or [collection, index, 'g', tuple]
 *   -> [accountId, id]. Checked and set in the same write transaction as the document, so two
 *   concurrent writers can never both claim a value.
 * - `sidx`: [collection, index, accountId, ...values, id] -> 1, one entry per document and
 *   secondary index; each value is encoded as (BSON type rank, number or string prefix) so key
 *   order is the port's sort order. `find` walks an index range instead of the tenant when the
 *   filter pins a leading run of fields and the sort is the rest (see documents.indexes.ts).
 * - `meta`: ['format'] -> layout version; ['idx', collection, index] -> index definition, so an
 *   added or changed unique index is (re)built from the stored documents on first use.
 *
 * Writes resolve only once committed and flushed to disk. The concerns live in small files:
 * documents.lmdb-env.ts (environment, write transactions), documents.lmdb-unique.ts (unique keys),
 * documents.lmdb-secondary.ts (secondary entries, index walks), documents.lmdb-query.ts (query
 * planning), documents.lmdb-rebuild.ts (index (re)builds), documents.lmdb-collection.ts (a collection's
 * reads and writes); this file opens the store.
 */
import { inScratchDir } from '@pylon/kit/scratch';
import type { Collection, CollectionSpec, DocumentStore } from '@pylon/kit/ports/documents';
import { collectionHandles } from '../documents/documents.indexes.js';
import { asCollection } from '../documents/documents.shared.js';
import { openLmdbEnv } from './documents.lmdb-env.js';
import { LmdbCollection } from './documents.lmdb-collection.js';

export interface LmdbDocumentStoreOptions {
  /** Directory of the LMDB environment (created when missing). */
  path: string;
}

export async function createLmdbDocumentStore(opts: LmdbDocumentStoreOptions): Promise<DocumentStore> {
  const env = await openLmdbEnv(opts.path);
  const openCollection = collectionHandles((spec) => asCollection(new LmdbCollection(env, spec)));
  return {
    collection<T extends object>(spec: CollectionSpec): Collection<T> {
      env.checkOpen();
      return openCollection(spec) as unknown as Collection<T>;
    },
    async ping(): Promise<void> {
      env.checkOpen();
      env.meta.get(['format']);
    },
    close(): Promise<void> {
      return env.close();
    },
  };
}

/**
 * An embedded store in a fresh temporary directory named `prefix` plus a random suffix (tests,
 * scratch work): closing the store removes the directory.
 */
export const createScratchLmdbStore = (prefix: string): Promise<DocumentStore> => inScratchDir(prefix, (path) => createLmdbDocumentStore({ path }));
