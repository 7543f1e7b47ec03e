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
 * planning), documents.lmdb-rebuild.ts (index (re)builds); this file is the collection's writes.
 */
import type { Collection, CollectionSpec, DocumentStore, Filter, FindOptions, Stored, UpdateSpec, WriteOptions } from '@pylon/kit/ports/documents';
import { collectionHandles, indexReadiness, validateSecondaryIndexes } from '../documents/documents.indexes.js';
import { fail, ok, openLmdbEnv, type Key } from './documents.lmdb-env.js';
import { collectionQueries } from './documents.lmdb-query.js';
import { ensureSecondaryIndexes, ensureUniqueIndexes } from './documents.lmdb-rebuild.js';
import { secondaryIndexes } from './documents.lmdb-secondary.js';
import { sameRef, uniqueKeysFor, type ResolvedIndex } from './documents.lmdb-unique.js';
import { applyUpdate, uniqueLookupKey } from './documents.mongo-emulation.js';
import {
  assertExpectedVersion,
  assertFilter,
  assertTenant,
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

export interface LmdbDocumentStoreOptions {
  /** Directory of the LMDB environment (created when missing). */
  path: string;
}

export async function createLmdbDocumentStore(opts: LmdbDocumentStoreOptions): Promise<DocumentStore> {
  const env = await openLmdbEnv(opts.path);
  const { docs, uniq, checkOpen, write } = env;

  // Function declarations are hoisted: the handle cache can wrap makeCollection here.
  const openCollection = collectionHandles(makeCollection);
  function makeCollection(spec: CollectionSpec): Collection<object> {
    const name = spec.name;
    const indexes: ResolvedIndex[] = (spec.uniqueIndexes ?? []).map((i) => ({ name: i.name, fields: [...i.fields], scope: indexScope(i) }));
    const docKey = (tenant: string, id: string): Key => [name, tenant, id];
    const uniqueKeys = uniqueKeysFor(name, indexes);
    const secondary = validateSecondaryIndexes(spec);
    const sx = secondaryIndexes(env, name, secondary);
    const { entriesOf, putEntries, removeEntries } = sx;
    const queries = collectionQueries(env, name, secondary, sx);

    const readiness = indexReadiness(() =>
      ensureUniqueIndexes(env, name, indexes, uniqueKeys).then(() => ensureSecondaryIndexes(env, name, secondary, entriesOf)),
    );
    async function begin(): Promise<void> {
      checkOpen();
      if (readiness.ready) return;
      await readiness.await();
      checkOpen();
    }

    const coll: Collection<object> = {
      async find(tenant: string, filter?: Filter, options?: FindOptions): Promise<Stored<object>[]> {
        assertTenant(tenant);
        assertFilter(filter);
        const o = normalizeFindOptions(options);
        await begin();
        return queries.find(tenant, filter, o, options?.after);
      },

      async findById(tenant: string, id: string): Promise<Stored<object> | null> {
        assertTenant(tenant);
        if (!isValidKeyString(id)) return null;
        await begin();
        return (docs.get(docKey(tenant, id)) as Stored<object> | undefined) ?? null;
      },

      async count(tenant: string, filter?: Filter): Promise<number> {
        assertTenant(tenant);
        assertFilter(filter);
        await begin();
        return queries.count(tenant, filter);
      },

      async insert(tenant: string, doc: object & { id?: string }): Promise<Stored<object>> {
        assertTenant(tenant);
        const id = resolveInsertId(doc, newId);
        const now = new Date().toISOString();
        const stored = prepareInsert(tenant, doc, id, now);
        const keys = uniqueKeys(stored);
        const entries = entriesOf(stored);
        await begin();
        const key = docKey(tenant, id);
        return write(() => {
          for (const k of keys) if (uniq.doesExist(k.key)) return fail(duplicateKey(name, k.index));
          // First write of the callback: fails (writing nothing) when the id is taken. putSync
          // returns false then (documented in lmdb's README, typed `void` in its .d.ts).
          const written = docs.putSync(key, stored, { noOverwrite: true }) as unknown as boolean;
          if (!written) return fail(duplicateKey(name, 'id'));
          for (const k of keys) uniq.putSync(k.key, [tenant, id]);
          putEntries(entries);
          return ok(stored as Stored<object>);
        });
      },

      async insertMany(tenant: string, input: Array<object & { id?: string }>): Promise<Stored<object>[]> {
        assertTenant(tenant);
        if (!Array.isArray(input)) throw new Error('documents: insertMany takes an array');
        const now = new Date().toISOString();
        const prepared = input.map((doc) => {
          const id = resolveInsertId(doc, newId);
          const stored = prepareInsert(tenant, doc, id, now);
          return { id, stored, keys: uniqueKeys(stored), entries: entriesOf(stored) };
        });
        await begin();
        if (prepared.length === 0) return [];
        // One transaction; a failure stops there and commits the documents before it (ordered).
        return write(() => {
          const out: Stored<object>[] = [];
          for (const p of prepared) {
            for (const k of p.keys) if (uniq.doesExist(k.key)) return fail(duplicateKey(name, k.index));
            const written = docs.putSync(docKey(tenant, p.id), p.stored, { noOverwrite: true }) as unknown as boolean;
            if (!written) return fail(duplicateKey(name, 'id'));
            for (const k of p.keys) uniq.putSync(k.key, [tenant, p.id]);
            putEntries(p.entries);
            out.push(p.stored as Stored<object>);
          }
          return ok(out);
        });
      },

      async deleteMany(tenant: string, filter: Filter): Promise<number> {
        assertTenant(tenant);
        assertFilter(filter);
        await begin();
        // Bounded chunks keep each transaction (and the ids held in memory) small.
        const CHUNK = 5000;
        let total = 0;
        for (;;) {
          const batch: Doc[] = [];
          for (const d of queries.candidates(tenant, filter)) {
            batch.push(d);
            if (batch.length >= CHUNK) break;
          }
          if (batch.length === 0) return total;
          total += await write(() => {
            let n = 0;
            for (const d of batch) {
              const key = docKey(tenant, d.id as string);
              const cur = docs.get(key);
              if (!cur) continue;
              for (const k of uniqueKeys(cur)) if (sameRef(uniq.get(k.key), tenant, cur.id as string)) uniq.removeSync(k.key);
              removeEntries(entriesOf(cur));
              docs.removeSync(key);
              n++;
            }
            return ok(n);
          });
          if (batch.length < CHUNK) return total;
        }
      },

      async update(tenant: string, id: string, update: UpdateSpec, options?: WriteOptions): Promise<Stored<object> | null> {
        assertTenant(tenant);
        const ops = prepareUpdate(update);
        const expected = options?.expectedVersion;
        assertExpectedVersion(expected);
        if (!isValidKeyString(id)) return null;
        await begin();
        const key = docKey(tenant, id);
        const now = new Date().toISOString();
        return write<Stored<object> | null>(() => {
          const doc = docs.get(key);
          if (!doc) return ok(null);
          const version = doc.version as number;
          if (expected !== undefined && version !== expected) return fail(versionConflict(name, id, expected, version));
          const before = uniqueKeys(doc);
          const entriesBefore = entriesOf(doc);
          applyUpdate(doc, ops);
          doc.version = version + 1;
          doc.updatedAt = now;
          const after = uniqueKeys(doc);
          const entriesAfter = entriesOf(doc);
          const beforeSigs = new Set(before.map((k) => k.sig));
          const afterSigs = new Set(after.map((k) => k.sig));
          const added = after.filter((k) => !beforeSigs.has(k.sig));
          for (const k of added) {
            if (uniq.doesExist(k.key) && !sameRef(uniq.get(k.key), tenant, id)) return fail(duplicateKey(name, k.index));
          }
          for (const k of before) if (!afterSigs.has(k.sig)) uniq.removeSync(k.key);
          for (const k of added) uniq.putSync(k.key, [tenant, id]);
          removeEntries(entriesBefore);
          putEntries(entriesAfter);
          docs.putSync(key, doc);
          return ok(doc as Stored<object>);
        });
      },

      async delete(tenant: string, id: string, options?: WriteOptions): Promise<boolean> {
        assertTenant(tenant);
        const expected = options?.expectedVersion;
        assertExpectedVersion(expected);
        if (!isValidKeyString(id)) return false;
        await begin();
        const key = docKey(tenant, id);
        return write(() => {
          const doc = docs.get(key);
          if (!doc) return ok(false);
          const version = doc.version as number;
          if (expected !== undefined && version !== expected) return fail(versionConflict(name, id, expected, version));
          const keys = uniqueKeys(doc);
          for (const k of keys) if (sameRef(uniq.get(k.key), tenant, id)) uniq.removeSync(k.key);
          removeEntries(entriesOf(doc));
          docs.removeSync(key);
          return ok(true);
        });
      },

      async findByUnique(index: string, values: unknown[]): Promise<Stored<object> | null> {
        const idx = indexes.find((i) => i.name === index);
        if (!idx) throw new Error(`documents: '${name}' has no unique index '${index}'`);
        if (idx.scope !== 'global') throw new Error(`documents: index '${index}' of '${name}' is tenant-scoped; findByUnique needs scope 'global'`);
        const enc = uniqueLookupKey(idx, values);
        await begin();
        const ref = uniq.get([name, idx.name, 'g', enc]);
        if (!ref) return null;
        return (docs.get(docKey(ref[0], ref[1])) as Stored<object> | undefined) ?? null;
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
      env.meta.get(['format']);
    },
    close(): Promise<void> {
      return env.close();
    },
  };
}
