/**
 * One documents collection on one MongoDB collection (documents.mongo.ts states the rules): every
 * read and write waits for the collection's indexes first, scopes its filter to the tenant, and
 * maps driver errors (duplicate keys by the spec's index name, an outage as UNAVAILABLE).
 */
import type mongoose from 'mongoose';
import type { Collection, CollectionSpec, Filter, FindOptions, Stored, UpdateSpec, WriteOptions } from '@pylon/kit/ports/documents';
import { afterFilter, andFilters, assertIndexedSet, indexReadiness, indexValuesOf, validateSecondaryIndexes } from '../documents/documents.indexes.js';
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
  prepareUpdates,
  resolveInsertId,
  versionConflict,
  type Doc,
} from '../documents/documents.shared.js';
import { indexOfDuplicate, isDuplicateKeyError, mapReadyError, mapUnavailable } from './errors.mongo.js';
import { ensureMongoIndexes, wantedIndexes, type IndexMode, type ResolvedIndex } from './indexes.mongo.js';

type MongoDoc = mongoose.mongo.Document;
type NativeCollection = mongoose.mongo.Collection<MongoDoc>;
type Secondary = ReturnType<typeof validateSecondaryIndexes>;

const NO_ID = { _id: 0 } as const;

/** The tenant condition always holds, whatever the caller's filter says about accountId. */
function scoped(tenant: string, filter: Filter | undefined): Doc {
  if (!filter || Object.keys(filter).length === 0) return { accountId: tenant };
  if (Object.prototype.hasOwnProperty.call(filter, 'accountId')) return { $and: [{ accountId: tenant }, filter] };
  return { accountId: tenant, ...filter };
}

export class MongoCollection implements Collection<object> {
  private readonly name: string;
  private readonly indexes: ResolvedIndex[];
  private readonly secondary: Secondary;
  /** MongoDB index name -> the spec's index name (for duplicate-key errors), once built. */
  private logicalByIndex = new Map<string, string>();
  private readonly readiness: ReturnType<typeof indexReadiness>;

  constructor(
    private readonly c: NativeCollection,
    spec: CollectionSpec,
    indexMode: IndexMode,
    private readonly checkOpen: () => void,
  ) {
    this.name = spec.name;
    this.indexes = (spec.uniqueIndexes ?? []).map((i) => ({ name: i.name, fields: [...i.fields], scope: indexScope(i) }));
    this.secondary = validateSecondaryIndexes(spec);
    this.readiness = indexReadiness(async () => {
      this.logicalByIndex = await ensureMongoIndexes(c, wantedIndexes(this.indexes, this.secondary), indexMode);
    });
  }

  private checkIndexed(doc: Doc): void {
    for (const idx of this.secondary) indexValuesOf(doc, idx, this.name);
  }

  /** Waits for the collection's indexes to be (re)built, failing once the store is closed. */
  private async begin(): Promise<void> {
    this.checkOpen();
    if (!this.readiness.ready) {
      try {
        await this.readiness.await();
      } catch (e) {
        throw mapReadyError(e, this.name);
      }
    }
    this.checkOpen();
  }

  private mapWriteError(e: unknown): unknown {
    return isDuplicateKeyError(e) ? duplicateKey(this.name, indexOfDuplicate(e, this.logicalByIndex)) : mapUnavailable(e);
  }

  /** Every operation's driver errors: an outage answers UNAVAILABLE. */
  private async guarded<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      throw this.mapWriteError(e);
    }
  }

  private async currentVersion(tenant: string, id: string): Promise<number | undefined> {
    const cur = await this.guarded(() => this.c.findOne({ accountId: tenant, id }, { projection: { _id: 0, version: 1 } }));
    return cur ? (cur.version as number) : undefined;
  }

  /** A write that matched nothing under an expected version: a conflict when the document is there at another version. */
  private async checkVersion(tenant: string, id: string, expected: number | undefined): Promise<void> {
    if (expected === undefined) return;
    const actual = await this.currentVersion(tenant, id);
    if (actual !== undefined) throw versionConflict(this.name, id, expected, actual);
  }

  async find(tenant: string, filter?: Filter, options?: FindOptions): Promise<Stored<object>[]> {
    assertTenant(tenant);
    assertFilter(filter);
    const o = normalizeFindOptions(options);
    await this.begin();
    if (o.limit === 0) return [];
    const where = options?.after ? andFilters(filter, afterFilter(o.sort, options.after)) : filter;
    const cursor = this.c.find(scoped(tenant, where), {
      projection: NO_ID,
      sort: o.sort,
      ...(o.skip > 0 ? { skip: o.skip } : {}),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
    });
    return (await this.guarded(() => cursor.toArray())) as unknown as Stored<object>[];
  }

  async findById(tenant: string, id: string): Promise<Stored<object> | null> {
    assertTenant(tenant);
    if (!isValidKeyString(id)) return null;
    await this.begin();
    return (await this.guarded(() => this.c.findOne({ accountId: tenant, id }, { projection: NO_ID }))) as Stored<object> | null;
  }

  async count(tenant: string, filter?: Filter): Promise<number> {
    assertTenant(tenant);
    assertFilter(filter);
    await this.begin();
    return this.guarded(() => this.c.countDocuments(scoped(tenant, filter)));
  }

  async insert(tenant: string, doc: object & { id?: string }): Promise<Stored<object>> {
    assertTenant(tenant);
    const id = resolveInsertId(doc, newId);
    const stored = prepareInsert(tenant, doc, id, new Date().toISOString());
    this.checkIndexed(stored);
    await this.begin();
    // The driver adds `_id` to the object it is given: hand it a copy.
    await this.guarded(() => this.c.insertOne({ ...stored }));
    return stored as Stored<object>;
  }

  async insertMany(tenant: string, input: Array<object & { id?: string }>): Promise<Stored<object>[]> {
    assertTenant(tenant);
    if (!Array.isArray(input)) throw new Error('documents: insertMany takes an array');
    const now = new Date().toISOString();
    const stored = input.map((doc) => {
      const s = prepareInsert(tenant, doc, resolveInsertId(doc, newId), now);
      this.checkIndexed(s);
      return s;
    });
    await this.begin();
    if (stored.length === 0) return [];
    // Ordered: a failure stops the batch there, as the port says.
    await this.guarded(() =>
      this.c.insertMany(
        stored.map((d) => ({ ...d })),
        { ordered: true },
      ),
    );
    return stored as Stored<object>[];
  }

  async deleteMany(tenant: string, filter: Filter): Promise<number> {
    assertTenant(tenant);
    assertFilter(filter);
    await this.begin();
    return (await this.guarded(() => this.c.deleteMany(scoped(tenant, filter)))).deletedCount;
  }

  async updateMany(tenant: string, items: ReadonlyArray<{ id: string; update: UpdateSpec }>): Promise<Array<Stored<object> | null>> {
    const prepared = prepareUpdates(tenant, items);
    await this.begin();
    if (prepared.length === 0) return [];
    const ops: mongoose.mongo.AnyBulkWriteOperation<MongoDoc>[] = [];
    const now = new Date().toISOString();
    for (const p of prepared) {
      // An object in an indexed field is refused before anything is sent (the embedded store refuses it at that item).
      assertIndexedSet(this.secondary, p.ops.setObject, this.name);
      if (!isValidKeyString(p.id)) continue;
      const modifier: Doc = { $set: { ...p.ops.setObject, updatedAt: now }, $inc: { version: 1 } };
      if (p.ops.unsetPaths.length > 0) modifier.$unset = Object.fromEntries(p.ops.unsetPaths.map((path) => [path, '']));
      ops.push({ updateOne: { filter: { accountId: tenant, id: p.id }, update: modifier } });
    }
    // Ordered: a failure (duplicate key) stops the batch there, as the port says.
    if (ops.length) await this.guarded(() => this.c.bulkWrite(ops, { ordered: true }));
    // The documents after the batch, read back in one query (bulkWrite answers counts, not documents).
    const ids = [...new Set(prepared.map((p) => p.id).filter(isValidKeyString))];
    const found = new Map<string, Stored<object>>();
    for (let i = 0; i < ids.length; i += 5000) {
      const page = (await this.guarded(() =>
        this.c.find({ accountId: tenant, id: { $in: ids.slice(i, i + 5000) } }, { projection: NO_ID }).toArray(),
      )) as unknown as Stored<object>[];
      for (const d of page) found.set(d.id, d);
    }
    return prepared.map((p) => found.get(p.id) ?? null);
  }

  async update(tenant: string, id: string, update: UpdateSpec, options?: WriteOptions): Promise<Stored<object> | null> {
    assertTenant(tenant);
    const ops = prepareUpdate(update);
    const expected = options?.expectedVersion;
    assertExpectedVersion(expected);
    if (!isValidKeyString(id)) return null;
    await this.begin();
    assertIndexedSet(this.secondary, ops.setObject, this.name);
    const filter: Doc = { accountId: tenant, id };
    if (expected !== undefined) filter.version = expected;
    const modifier: Doc = { $set: { ...ops.setObject, updatedAt: new Date().toISOString() }, $inc: { version: 1 } };
    if (ops.unsetPaths.length > 0) modifier.$unset = Object.fromEntries(ops.unsetPaths.map((p) => [p, '']));
    const after = await this.guarded(() => this.c.findOneAndUpdate(filter, modifier, { returnDocument: 'after', projection: NO_ID }));
    if (after) return after as unknown as Stored<object>;
    await this.checkVersion(tenant, id, expected);
    return null;
  }

  async delete(tenant: string, id: string, options?: WriteOptions): Promise<boolean> {
    assertTenant(tenant);
    const expected = options?.expectedVersion;
    assertExpectedVersion(expected);
    if (!isValidKeyString(id)) return false;
    await this.begin();
    const filter: Doc = { accountId: tenant, id };
    if (expected !== undefined) filter.version = expected;
    const r = await this.guarded(() => this.c.deleteOne(filter));
    if (r.deletedCount === 1) return true;
    await this.checkVersion(tenant, id, expected);
    return false;
  }

  async findByUnique(index: string, values: unknown[]): Promise<Stored<object> | null> {
    const idx = this.indexes.find((i) => i.name === index);
    if (!idx) throw new Error(`documents: '${this.name}' has no unique index '${index}'`);
    if (idx.scope !== 'global') throw new Error(`documents: index '${index}' of '${this.name}' is tenant-scoped; findByUnique needs scope 'global'`);
    checkUniqueLookup(idx, values);
    await this.begin();
    const q: Doc = {};
    idx.fields.forEach((f, i) => {
      q[f] = { $eq: values[i], $exists: true };
    });
    return (await this.guarded(() => this.c.findOne(q, { projection: NO_ID }))) as Stored<object> | null;
  }
}
