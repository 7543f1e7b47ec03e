/**
 * One collection of the embedded store (documents.lmdb.ts): its reads (planned in
 * documents.lmdb-query.ts) and its writes, each one write transaction that checks unique keys and
 * versions before its first write and keeps the unique and secondary index entries in step.
 */
import type { CollectionSpec, Filter, FindOptions, Stored, UpdateSpec, WriteOptions } from '@pylon/kit/ports/documents';
import { indexReadiness, validateSecondaryIndexes } from '../documents/documents.indexes.js';
import { fail, ok, type Key, type LmdbEnv, type TxResult } from './documents.lmdb-env.js';
import { collectionQueries } from './documents.lmdb-query.js';
import { ensureSecondaryIndexes, ensureUniqueIndexes } from './documents.lmdb-rebuild.js';
import { secondaryIndexes, type SecondaryIndexes } from './documents.lmdb-secondary.js';
import { sameRef, uniqueKeysFor, type ResolvedIndex, type UniqueKey } from './documents.lmdb-unique.js';
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
  prepareUpdates,
  resolveInsertId,
  versionConflict,
  type Doc,
} from '../documents/documents.shared.js';

/** Documents deleteMany removes per write transaction: keeps each transaction (and the ids held in memory) small. */
const DELETE_CHUNK = 5000;

export class LmdbCollection {
  private readonly name: string;
  private readonly indexes: ResolvedIndex[];
  private readonly uniqueKeys: ReturnType<typeof uniqueKeysFor>;
  private readonly sx: SecondaryIndexes;
  private readonly queries: ReturnType<typeof collectionQueries>;
  private readonly readiness: ReturnType<typeof indexReadiness>;
  /**
   * The top-level fields that some unique or secondary index reads: an index value lies inside its
   * field's top-level subtree, and an update path changes only its own top-level subtree, so an
   * update naming none of these leaves every index entry as it was (and as valid as when written).
   */
  private readonly indexedTops: ReadonlySet<string>;

  constructor(
    private readonly env: LmdbEnv,
    spec: CollectionSpec,
  ) {
    const name = spec.name;
    this.name = name;
    this.indexes = (spec.uniqueIndexes ?? []).map((i) => ({ name: i.name, fields: [...i.fields], scope: indexScope(i) }));
    this.uniqueKeys = uniqueKeysFor(name, this.indexes);
    const secondary = validateSecondaryIndexes(spec);
    this.sx = secondaryIndexes(env, name, secondary);
    this.indexedTops = new Set([...this.indexes, ...secondary].flatMap((i) => i.fields.map((f) => f.split('.')[0]!)));
    this.queries = collectionQueries(env, name, secondary, this.sx);
    const { indexes, uniqueKeys } = this;
    const { entriesOf } = this.sx;
    this.readiness = indexReadiness(() =>
      ensureUniqueIndexes(env, name, indexes, uniqueKeys).then(() => ensureSecondaryIndexes(env, name, secondary, entriesOf)),
    );
  }

  private docKey(tenant: string, id: string): Key {
    return [this.name, tenant, id];
  }

  /** Waits for the collection's indexes to be (re)built, failing once the store is closed. */
  private async begin(): Promise<void> {
    this.env.checkOpen();
    if (this.readiness.ready) return;
    await this.readiness.await();
    this.env.checkOpen();
  }

  async find(tenant: string, filter?: Filter, options?: FindOptions): Promise<Stored<object>[]> {
    assertTenant(tenant);
    assertFilter(filter);
    const o = normalizeFindOptions(options);
    await this.begin();
    return this.queries.find(tenant, filter, o, options?.after);
  }

  async findById(tenant: string, id: string): Promise<Stored<object> | null> {
    assertTenant(tenant);
    if (!isValidKeyString(id)) return null;
    await this.begin();
    return (this.env.docs.get(this.docKey(tenant, id)) as Stored<object> | undefined) ?? null;
  }

  async count(tenant: string, filter?: Filter): Promise<number> {
    assertTenant(tenant);
    assertFilter(filter);
    await this.begin();
    return this.queries.count(tenant, filter);
  }

  async insert(tenant: string, doc: object & { id?: string }): Promise<Stored<object>> {
    assertTenant(tenant);
    const id = resolveInsertId(doc, newId);
    const now = new Date().toISOString();
    const stored = prepareInsert(tenant, doc, id, now);
    const keys = this.uniqueKeys(stored);
    const entries = this.sx.entriesOf(stored);
    await this.begin();
    const { docs, uniq } = this.env;
    const key = this.docKey(tenant, id);
    return this.env.write(() => {
      for (const k of keys) if (uniq.doesExist(k.key)) return fail(duplicateKey(this.name, k.index));
      // First write of the callback: fails (writing nothing) when the id is taken. putSync
      // returns false then (documented in lmdb's README, typed `void` in its .d.ts).
      const written = docs.putSync(key, stored, { noOverwrite: true }) as unknown as boolean;
      if (!written) return fail(duplicateKey(this.name, 'id'));
      for (const k of keys) uniq.putSync(k.key, [tenant, id]);
      this.sx.putEntries(entries);
      return ok(stored as Stored<object>);
    });
  }

  async insertMany(tenant: string, input: Array<object & { id?: string }>): Promise<Stored<object>[]> {
    assertTenant(tenant);
    if (!Array.isArray(input)) throw new Error('documents: insertMany takes an array');
    const now = new Date().toISOString();
    const prepared = input.map((doc) => {
      const id = resolveInsertId(doc, newId);
      const stored = prepareInsert(tenant, doc, id, now);
      return { id, stored, keys: this.uniqueKeys(stored), entries: this.sx.entriesOf(stored) };
    });
    await this.begin();
    if (prepared.length === 0) return [];
    const { docs, uniq } = this.env;
    // One transaction; a failure stops there and commits the documents before it (ordered).
    return this.env.write(() => {
      const out: Stored<object>[] = [];
      for (const p of prepared) {
        for (const k of p.keys) if (uniq.doesExist(k.key)) return fail(duplicateKey(this.name, k.index));
        const written = docs.putSync(this.docKey(tenant, p.id), p.stored, { noOverwrite: true }) as unknown as boolean;
        if (!written) return fail(duplicateKey(this.name, 'id'));
        for (const k of p.keys) uniq.putSync(k.key, [tenant, p.id]);
        this.sx.putEntries(p.entries);
        out.push(p.stored as Stored<object>);
      }
      return ok(out);
    });
  }

  async deleteMany(tenant: string, filter: Filter): Promise<number> {
    assertTenant(tenant);
    assertFilter(filter);
    await this.begin();
    let total = 0;
    for (;;) {
      const batch: Doc[] = [];
      for (const d of this.queries.candidates(tenant, filter)) {
        batch.push(d);
        if (batch.length >= DELETE_CHUNK) break;
      }
      if (batch.length === 0) return total;
      total += await this.deleteChunk(tenant, batch);
      if (batch.length < DELETE_CHUNK) return total;
    }
  }

  /** Deletes the documents of `batch` still there, with their index entries, in one write transaction. */
  private deleteChunk(tenant: string, batch: Doc[]): Promise<number> {
    const { docs, uniq } = this.env;
    return this.env.write(() => {
      let n = 0;
      for (const d of batch) {
        const key = this.docKey(tenant, d.id as string);
        const cur = docs.get(key);
        if (!cur) continue;
        for (const k of this.uniqueKeys(cur)) if (sameRef(uniq.get(k.key), tenant, cur.id as string)) uniq.removeSync(k.key);
        this.sx.removeEntries(this.sx.entriesOf(cur));
        docs.removeSync(key);
        n++;
      }
      return ok(n);
    });
  }

  async update(tenant: string, id: string, update: UpdateSpec, options?: WriteOptions): Promise<Stored<object> | null> {
    const expected = options?.expectedVersion;
    assertTenant(tenant);
    assertExpectedVersion(expected);
    const ops = prepareUpdate(update);
    if (!isValidKeyString(id)) return null;
    const now = new Date().toISOString();
    await this.begin();
    return this.env.write<Stored<object> | null>(() => this.applyUpdateTx(tenant, id, ops, now, expected));
  }

  async updateMany(tenant: string, items: ReadonlyArray<{ id: string; update: UpdateSpec }>): Promise<Array<Stored<object> | null>> {
    const now = new Date().toISOString();
    const prepared = prepareUpdates(tenant, items);
    await this.begin();
    if (prepared.length === 0) return [];
    // One transaction (one commit and flush for the lot); a failure stops there, the updates before it stay.
    return this.env.write(() => {
      const out: Array<Stored<object> | null> = [];
      for (const p of prepared) {
        if (!isValidKeyString(p.id)) {
          out.push(null);
          continue;
        }
        const r = this.applyUpdateTx(tenant, p.id, p.ops, now, undefined);
        if (!r.ok) return r as TxResult<Array<Stored<object> | null>>;
        out.push(r.value);
      }
      return ok(out);
    });
  }

  /** Inside a write transaction: one document's update with its index entries; checks come before its first write. */
  private applyUpdateTx(
    tenant: string,
    id: string,
    ops: ReturnType<typeof prepareUpdate>,
    now: string,
    expected: number | undefined,
  ): TxResult<Stored<object> | null> {
    const { docs } = this.env;
    const key = this.docKey(tenant, id);
    const doc = docs.get(key);
    if (!doc) return ok(null);
    const version = doc.version as number;
    if (expected !== undefined && version !== expected) return fail(versionConflict(this.name, id, expected, version));
    if (!this.touchesIndexes(ops)) {
      // No index entry can change (bulk $sets of an unindexed field: delivery hints, ping data).
      applyUpdate(doc, ops);
      doc.version = version + 1;
      doc.updatedAt = now;
      docs.putSync(key, doc);
      return ok(doc as Stored<object>);
    }
    const before = this.uniqueKeys(doc);
    const entriesBefore = this.sx.entriesOf(doc);
    applyUpdate(doc, ops);
    doc.version = version + 1;
    doc.updatedAt = now;
    const after = this.uniqueKeys(doc);
    const entriesAfter = this.sx.entriesOf(doc);
    const clash = this.moveUniqueKeys(tenant, id, before, after);
    if (clash) return clash;
    this.sx.removeEntries(entriesBefore);
    this.sx.putEntries(entriesAfter);
    docs.putSync(key, doc);
    return ok(doc as Stored<object>);
  }

  /** Whether an update sets or unsets a path inside a field some index reads. */
  private touchesIndexes(ops: ReturnType<typeof prepareUpdate>): boolean {
    if (this.indexedTops.size === 0) return false;
    for (const [segs] of ops.set) if (this.indexedTops.has(segs[0]!)) return true;
    for (const segs of ops.unset) if (this.indexedTops.has(segs[0]!)) return true;
    return false;
  }

  /**
   * Inside an update's transaction: the unique keys `before` -> `after` of document `id`. A key
   * added that another document holds fails before anything is written; else the dropped keys go
   * and the added ones point here.
   */
  private moveUniqueKeys(tenant: string, id: string, before: UniqueKey[], after: UniqueKey[]) {
    const { uniq } = this.env;
    const beforeSigs = new Set(before.map((k) => k.sig));
    const afterSigs = new Set(after.map((k) => k.sig));
    const added = after.filter((k) => !beforeSigs.has(k.sig));
    for (const k of added) {
      if (uniq.doesExist(k.key) && !sameRef(uniq.get(k.key), tenant, id)) return fail<Stored<object> | null>(duplicateKey(this.name, k.index));
    }
    for (const k of before) if (!afterSigs.has(k.sig)) uniq.removeSync(k.key);
    for (const k of added) uniq.putSync(k.key, [tenant, id]);
    return undefined;
  }

  async delete(tenant: string, id: string, options?: WriteOptions): Promise<boolean> {
    assertTenant(tenant);
    const expected = options?.expectedVersion;
    assertExpectedVersion(expected);
    if (!isValidKeyString(id)) return false;
    await this.begin();
    const key = this.docKey(tenant, id);
    const { docs, uniq } = this.env;
    return this.env.write(() => {
      const doc = docs.get(key);
      if (!doc) return ok(false);
      const version = doc.version as number;
      if (expected !== undefined && version !== expected) return fail(versionConflict(this.name, id, expected, version));
      const keys = this.uniqueKeys(doc);
      for (const k of keys) if (sameRef(uniq.get(k.key), tenant, id)) uniq.removeSync(k.key);
      this.sx.removeEntries(this.sx.entriesOf(doc));
      docs.removeSync(key);
      return ok(true);
    });
  }

  async findByUnique(index: string, values: unknown[]): Promise<Stored<object> | null> {
    const idx = this.indexes.find((i) => i.name === index);
    if (!idx) throw new Error(`documents: '${this.name}' has no unique index '${index}'`);
    if (idx.scope !== 'global') throw new Error(`documents: index '${index}' of '${this.name}' is tenant-scoped; findByUnique needs scope 'global'`);
    const enc = uniqueLookupKey(idx, values);
    await this.begin();
    const ref = this.env.uniq.get([this.name, idx.name, 'g', enc]);
    if (!ref) return null;
    return (this.env.docs.get(this.docKey(ref[0], ref[1])) as Stored<object> | undefined) ?? null;
  }
}
