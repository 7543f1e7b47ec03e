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
 * Writes resolve only once committed and flushed to disk.
 */
import { open } from 'lmdb';
import { Query } from 'mingo';
import type { Collection, CollectionSpec, DocumentStore, Filter, FindOptions, IndexSpec, Stored, UpdateSpec, WriteOptions } from '../ports/documents.js';
import {
  afterFilter,
  andFilters,
  indexValuesOf,
  numericBoundsOf,
  planIndex,
  pinnedIds,
  collectionHandles,
  indexReadiness,
  skipsSparse,
  validateSecondaryIndexes,
  type IndexPlan,
  type NumericBounds,
  type Scalar,
} from './documents.indexes.js';
import { applyUpdate, sortDocs, uniqueKeysOf, uniqueLookupKey } from './documents.mongo-emulation.js';
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
} from './documents.shared.js';
import type { SecondaryIndexSpec } from '../ports/documents.js';

export interface LmdbDocumentStoreOptions {
  /** Directory of the LMDB environment (created when missing). */
  path: string;
}

type Key = string | number | boolean | Uint8Array | Key[];
type Ref = [accountId: string, id: string];

/** Sorts after every string/number element, closing a prefix range. */
const MAX = new Uint8Array([0xff]);
const FORMAT = 1;
const QUERY_OPTIONS = { scriptEnabled: false } as const;
/** Strings are indexed by this many leading characters; longer ones are ordered within a run. */
const INDEX_STRING_CHARS = 100;

/** (rank, value) pairs in BSON order: null/missing < numbers < strings < booleans < dates. */
function encodeIndexValue(v: Scalar, out: Key[]): boolean {
  if (v === null) out.push(1, 0);
  else if (typeof v === 'number') out.push(2, Number.isNaN(v) ? -Number.MAX_VALUE : v);
  else if (typeof v === 'string') {
    out.push(3, v.length > INDEX_STRING_CHARS ? v.slice(0, INDEX_STRING_CHARS) : v);
    return v.length >= INDEX_STRING_CHARS;
  } else if (typeof v === 'boolean') out.push(8, v ? 1 : 0);
  else out.push(9, v.getTime());
  return false;
}

/** Index rank of a value, as encodeIndexValue writes it. */
function rankOf(v: Scalar): number {
  if (v === null) return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  if (typeof v === 'boolean') return 8;
  return 9;
}

/** How an ordered walk over one free field is narrowed (see `find`). */
interface WalkRange {
  bounds?: NumericBounds;
  /** Start at the numeric range instead of at `after` (which lies before it). */
  fromBounds?: boolean;
  /** Ranks of the entries the after filter would keep (absent: all). */
  ranks?: ReadonlySet<number>;
}

/**
 * What the after filter keeps, by rank: ascending after null, everything; ascending after a
 * value, its own type; descending, its own type, then nulls (see afterFilter in documents.indexes).
 */
function walkRange(dir: 1 | -1, after: Scalar | undefined, bounds: NumericBounds | null): WalkRange | undefined {
  const out: WalkRange = {};
  if (after !== undefined && !(dir === 1 && after === null)) out.ranks = new Set(dir === 1 || after === null ? [rankOf(after)] : [rankOf(after), 1]);
  if (bounds) {
    out.bounds = bounds;
    const near = dir === 1 ? bounds.lo : bounds.hi;
    // Jump to the range when `after` lies before it: absent, an ascending null, or a number short of it.
    out.fromBounds =
      after === undefined || (dir === 1 && after === null) || (typeof after === 'number' && near !== undefined && (dir === 1 ? after < near : after > near));
  }
  return out.ranks || out.bounds ? out : undefined;
}

type TxResult<T> = { ok: true; value: T } | { ok: false; error: unknown };
const ok = <T>(value: T): TxResult<T> => ({ ok: true, value });
const fail = <T>(error: unknown): TxResult<T> => ({ ok: false, error });

interface ResolvedIndex extends IndexSpec {
  scope: 'tenant' | 'global';
}

export async function createLmdbDocumentStore(opts: LmdbDocumentStoreOptions): Promise<DocumentStore> {
  const root = open({ path: opts.path, compression: false, maxDbs: 8 });
  const docs = root.openDB<Doc, Key>({ name: 'docs', compression: false, cache: false, sharedStructuresKey: Symbol.for('structures') });
  const uniq = root.openDB<Ref, Key>({ name: 'uniq', compression: false, cache: false });
  const meta = root.openDB<unknown, Key>({ name: 'meta', compression: false, cache: false });
  // Secondary indexes: [collection, index, accountId, ...encoded values, id] -> 1.
  const sidx = root.openDB<number, Key>({ name: 'sidx', compression: false, cache: false });
  let closed = false;

  const checkOpen = (): void => {
    if (closed) throw new Error('documents: the store is closed');
  };

  /**
   * Runs `fn` inside a write transaction (batched with the other writes of this event turn) and
   * resolves once it is committed and flushed. `fn` must do all checks before its first write and
   * report failures as values: an async LMDB transaction callback that throws is not rolled back.
   */
  async function write<T>(fn: () => TxResult<T>): Promise<T> {
    checkOpen();
    const r = await root.transaction(() => {
      try {
        return fn();
      } catch (e) {
        return fail<T>(e);
      }
    });
    await root.flushed;
    if (!r.ok) throw r.error;
    return r.value;
  }

  const format = meta.get(['format']);
  if (format === undefined) {
    await write(() => {
      if (meta.get(['format']) === undefined) meta.putSync(['format'], FORMAT);
      return ok(undefined);
    });
  } else if (format !== FORMAT) {
    await root.close();
    throw new Error(`documents: unsupported data format ${String(format)} at ${opts.path}`);
  }

  // Function declarations are hoisted: the handle cache can wrap makeCollection here.
  const openCollection = collectionHandles(makeCollection);
  function makeCollection(spec: CollectionSpec): Collection<object> {
    const name = spec.name;
    const indexes: ResolvedIndex[] = (spec.uniqueIndexes ?? []).map((i) => ({ name: i.name, fields: [...i.fields], scope: indexScope(i) }));
    const docKey = (tenant: string, id: string): Key => [name, tenant, id];
    const tenantRange = (tenant: string) => ({ start: [name, tenant] as Key, end: [name, tenant, MAX] as Key });

    interface UKey {
      index: string;
      key: Key;
      sig: string;
    }
    function uniqueKeys(doc: Doc): UKey[] {
      const out: UKey[] = [];
      const tenant = doc.accountId as string;
      for (const idx of indexes) {
        for (const enc of uniqueKeysOf(doc, idx)) {
          const key: Key = idx.scope === 'global' ? [name, idx.name, 'g', enc] : [name, idx.name, 't', tenant, enc];
          out.push({ index: idx.name, key, sig: JSON.stringify(key) });
        }
      }
      return out;
    }
    const sameRef = (ref: Ref | undefined, tenant: string, id: string): boolean => !!ref && ref[0] === tenant && ref[1] === id;

    const secondary = validateSecondaryIndexes(spec);
    const entryPrefix = (idx: SecondaryIndexSpec, tenant: string, values: Scalar[]): { key: Key[]; cut: boolean } => {
      const key: Key[] = [name, idx.name, tenant];
      let cut = false;
      for (const v of values) cut = encodeIndexValue(v, key) || cut;
      return { key, cut };
    };
    /** Secondary index entries of a stored document (validates that indexed fields hold scalars). */
    function entriesOf(doc: Doc): Key[][] {
      const out: Key[][] = [];
      for (const idx of secondary) {
        if (skipsSparse(doc, idx)) continue;
        const { key } = entryPrefix(idx, doc.accountId as string, indexValuesOf(doc, idx, name));
        key.push(doc.id as string);
        out.push(key);
      }
      return out;
    }
    const putEntries = (keys: Key[][]) => {
      for (const k of keys) sidx.putSync(k, 1);
    };
    const removeEntries = (keys: Key[][]) => {
      for (const k of keys) sidx.removeSync(k);
    };

    const readiness = indexReadiness(() => ensureIndexes(name, indexes, uniqueKeys).then(() => ensureSecondary(name, secondary, entriesOf)));
    async function begin(): Promise<void> {
      checkOpen();
      if (readiness.ready) return;
      await readiness.await();
      checkOpen();
    }

    function scan(tenant: string, filter: Filter | undefined, visit: (doc: Doc) => boolean | void, reverse = false): void {
      const q = filter && Object.keys(filter).length > 0 ? new Query(filter as never, QUERY_OPTIONS) : null;
      const r = tenantRange(tenant);
      const range = reverse ? { start: r.end, end: r.start, reverse: true } : r;
      for (const { value } of docs.getRange(range)) {
        if (q && !q.test(value)) continue;
        if (visit(value) === false) return;
      }
    }

    /**
     * Documents of an index range in index order (reverse for dir -1), starting near `after`
     * (sort values aligned with the index's free fields, then id). Entries whose string values
     * were cut to INDEX_STRING_CHARS are buffered per run of equal keys and sorted in full.
     */
    function* walk(tenant: string, plan: IndexPlan, sort: Array<[string, 1 | -1]>, after?: unknown[], range?: WalkRange): Generator<Doc> {
      const { key: prefix } = entryPrefix(plan.index, tenant, plan.equal);
      const free = plan.index.fields.length - plan.equal.length;
      let start: Key[] = plan.dir === 1 ? prefix : [...prefix, MAX];
      if (after && plan.ordered && !range?.fromBounds) {
        const { key: seek, cut } = entryPrefix(plan.index, tenant, [...plan.equal, ...(after.slice(0, free) as Scalar[])]);
        if (cut) start = plan.dir === 1 ? seek : [...seek, MAX];
        else start = [...seek, after[after.length - 1] as string];
      }
      const bounds = range?.bounds;
      const near = plan.dir === 1 ? bounds?.lo : bounds?.hi;
      const far = plan.dir === 1 ? bounds?.hi : bounds?.lo;
      const farOpen = plan.dir === 1 ? bounds?.hiOpen : bounds?.loOpen;
      if (range?.fromBounds) {
        // Numbers have rank 2 (see encodeIndexValue): nulls before them, strings after.
        if (plan.dir === 1) start = near !== undefined ? [...prefix, 2, near] : [...prefix, 2];
        else start = near !== undefined ? [...prefix, 2, near, MAX] : [...prefix, 2, MAX];
      }
      const end: Key[] = plan.dir === 1 ? [...prefix, MAX] : prefix;
      const keys = plan.dir === 1 ? { start, end } : { start, end, reverse: true };
      const rankAt = prefix.length; // first free (rank, value) pair
      let run: Doc[] = [];
      let runKey = '';
      const flush = function* (): Generator<Doc> {
        if (run.length > 1) sortDocs(run, sort);
        yield* run;
        run = [];
      };
      for (const key of sidx.getKeys(keys) as Iterable<Key[]>) {
        if (range) {
          const rank = key[rankAt] as number;
          if (bounds) {
            // Past the numeric run, or past the range's far end: nothing further can match.
            if (
              rank !== 2
                ? plan.dir === 1
                  ? rank > 2
                  : rank < 2
                : far !== undefined && (plan.dir === 1 ? (key[rankAt + 1] as number) > far : (key[rankAt + 1] as number) < far)
            )
              break;
            if (rank === 2 && farOpen && key[rankAt + 1] === far) break;
          }
          if (range.ranks && !range.ranks.has(rank)) continue;
        }
        const id = key[key.length - 1] as string;
        const doc = docs.get(docKey(tenant, id));
        if (!doc) continue;
        let cut = false;
        if (plan.ordered) {
          for (let i = rankAt; i < key.length - 1; i += 2) if (key[i] === 3 && (key[i + 1] as string).length >= INDEX_STRING_CHARS) cut = true;
        }
        if (!cut) {
          if (run.length) yield* flush();
          yield doc;
          continue;
        }
        const rk = JSON.stringify(key.slice(0, -1));
        if (rk !== runKey && run.length) yield* flush();
        runKey = rk;
        run.push(doc);
      }
      if (run.length) yield* flush();
    }

    /** Documents matching `filter`, through an index with an equality prefix when there is one. */
    function* candidates(tenant: string, filter: Filter | undefined): Generator<Doc> {
      const ids = pinnedIds(filter);
      const q = filter && Object.keys(filter).length > 0 ? new Query(filter as never, QUERY_OPTIONS) : null;
      if (ids) {
        // By key: a by-id read costs the ids asked for, not the tenant's size.
        for (const id of ids) {
          const d = isValidKeyString(id) ? (docs.get(docKey(tenant, id)) as Doc | undefined) : undefined;
          if (d && (!q || q.test(d))) yield d;
        }
        return;
      }
      const plan = planIndex(secondary, filter, []);
      if (plan && plan.equal.length > 0) {
        for (const d of walk(tenant, { ...plan, ordered: false, dir: 1 }, [])) if (!q || q.test(d)) yield d;
        return;
      }
      const out: Doc[] = [];
      scan(tenant, filter, (d) => {
        out.push(d);
      });
      yield* out;
    }

    const coll: Collection<object> = {
      async find(tenant: string, filter?: Filter, options?: FindOptions): Promise<Stored<object>[]> {
        assertTenant(tenant);
        assertFilter(filter);
        const o = normalizeFindOptions(options);
        await begin();
        if (o.limit === 0) return [];
        const end = o.limit === undefined ? Infinity : o.skip + o.limit;
        const after = options?.after;
        if (pinnedIds(filter)) {
          const all = [...candidates(tenant, after ? andFilters(filter, afterFilter(o.sort, after)) : filter)];
          sortDocs(all, o.sort);
          return all.slice(o.skip, end) as Stored<object>[];
        }
        const plan = planIndex(secondary, filter, o.sort);
        if (plan) {
          const afterOnly = after ? afterFilter(o.sort, after) : undefined;
          // An ordered walk over one free field, from an `after` the index holds uncut, starts
          // exactly at that position: the entries past it are the documents after it, except for
          // the types the after filter leaves out (comparisons are type-bracketed), which `ranks`
          // skips. So that filter (an $or, tested on every document walked) is not needed; a
          // numeric range on the field makes the walk start at the range and stop past it.
          const single = plan.ordered && plan.index.fields.length - plan.equal.length === 1;
          const exactStart = !!after && single && !entryPrefix(plan.index, tenant, [...plan.equal, after[0] as Scalar]).cut;
          const range =
            single && (!after || exactStart)
              ? walkRange(plan.dir, after?.[0] as Scalar | undefined, numericBoundsOf(filter, plan.index.fields[plan.equal.length] as string))
              : undefined;
          const full = andFilters(filter, exactStart ? undefined : afterOnly);
          const q = full ? new Query(full as never, QUERY_OPTIONS) : null;
          if (plan.ordered) {
            const out: Doc[] = [];
            let seen = 0;
            const afterId = exactStart ? (after?.[after.length - 1] as string) : undefined;
            let first = true;
            for (const d of walk(tenant, plan, o.sort, after, range)) {
              if (first) {
                first = false;
                if (afterId !== undefined && d.id === afterId) continue;
              }
              if (q && !q.test(d)) continue;
              if (seen++ >= o.skip) out.push(d);
              if (seen >= end) break;
            }
            return out as Stored<object>[];
          }
          const all: Doc[] = [];
          for (const d of walk(tenant, { ...plan, dir: 1 }, o.sort)) if (!q || q.test(d)) all.push(d);
          sortDocs(all, o.sort);
          return all.slice(o.skip, end) as Stored<object>[];
        }
        if (after) filter = andFilters(filter, afterFilter(o.sort, after));
        const first = o.sort[0] as [string, 1 | -1];
        if (o.sort.length === 1 && first[0] === 'id') {
          // Key order is id order: stream and stop early.
          const out: Doc[] = [];
          let seen = 0;
          scan(
            tenant,
            filter,
            (d) => {
              if (seen++ >= o.skip) out.push(d);
              return seen < end;
            },
            first[1] === -1,
          );
          return out as Stored<object>[];
        }
        const all: Doc[] = [];
        scan(tenant, filter, (d) => {
          all.push(d);
        });
        sortDocs(all, o.sort);
        return all.slice(o.skip, end) as Stored<object>[];
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
        if (!filter || Object.keys(filter).length === 0) return docs.getKeysCount(tenantRange(tenant));
        const plan = planIndex(secondary, filter, []);
        if (plan && plan.equal.length === Object.keys(filter).length) {
          // The filter is exactly the index's equality prefix: count its keys, read no document.
          const { key } = entryPrefix(plan.index, tenant, plan.equal);
          return sidx.getKeysCount({ start: key, end: [...key, MAX] });
        }
        let n = 0;
        for (const _ of candidates(tenant, filter)) n++;
        return n;
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
          for (const d of candidates(tenant, filter)) {
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

  /** Builds unique indexes that are new or changed since the last run and drops removed ones. */
  async function ensureIndexes(name: string, indexes: ResolvedIndex[], keysOf: (doc: Doc) => Array<{ index: string; key: Key; sig: string }>): Promise<void> {
    const wanted = new Map(indexes.map((i) => [i.name, JSON.stringify({ fields: i.fields, scope: i.scope })]));
    const metaRange = { start: ['idx', name] as Key, end: ['idx', name, MAX] as Key };
    const current = (): Map<string, unknown> => {
      const m = new Map<string, unknown>();
      for (const { key, value } of meta.getRange(metaRange)) m.set((key as Key[])[2] as string, value);
      return m;
    };
    const upToDate = (have: Map<string, unknown>): boolean => have.size === wanted.size && [...wanted].every(([n, def]) => have.get(n) === def);
    if (upToDate(current())) return;
    await write(() => {
      const have = current();
      if (upToDate(have)) return ok(undefined);
      const build = indexes.filter((i) => have.get(i.name) !== wanted.get(i.name));
      const drop = [...have.keys()].filter((n) => have.get(n) !== wanted.get(n));
      // Compute everything before writing anything.
      const buildNames = new Set(build.map((i) => i.name));
      const entries = new Map<string, { key: Key; ref: Ref }>();
      for (const { value: doc } of docs.getRange({ start: [name], end: [name, MAX] })) {
        let keys: Array<{ index: string; key: Key; sig: string }>;
        try {
          keys = keysOf(doc);
        } catch (e) {
          return fail(e);
        }
        for (const k of keys) {
          if (!buildNames.has(k.index)) continue;
          const prev = entries.get(k.sig);
          const ref: Ref = [doc.accountId as string, doc.id as string];
          if (prev && (prev.ref[0] !== ref[0] || prev.ref[1] !== ref[1])) {
            return fail(new Error(`documents: cannot build unique index '${k.index}' on '${name}': stored documents share a value`));
          }
          entries.set(k.sig, { key: k.key, ref });
        }
      }
      for (const n of drop) {
        for (const key of [...uniq.getKeys({ start: [name, n], end: [name, n, MAX] })]) uniq.removeSync(key);
        meta.removeSync(['idx', name, n]);
      }
      for (const { key, ref } of entries.values()) uniq.putSync(key, ref);
      for (const i of build) meta.putSync(['idx', name, i.name], wanted.get(i.name));
      return ok(undefined);
    });
  }

  /** (Re)builds secondary indexes that are new or changed since the last run; drops removed ones. */
  async function ensureSecondary(name: string, indexes: SecondaryIndexSpec[], entriesOf: (doc: Doc) => Key[][]): Promise<void> {
    const wanted = new Map(indexes.map((i) => [i.name, JSON.stringify(i.fields)]));
    const metaRange = { start: ['sidx', name] as Key, end: ['sidx', name, MAX] as Key };
    const current = (): Map<string, unknown> => {
      const m = new Map<string, unknown>();
      for (const { key, value } of meta.getRange(metaRange)) m.set((key as Key[])[2] as string, value);
      return m;
    };
    const upToDate = (have: Map<string, unknown>): boolean => have.size === wanted.size && [...wanted].every(([n, def]) => have.get(n) === def);
    if (upToDate(current())) return;
    await write(() => {
      const have = current();
      if (upToDate(have)) return ok(undefined);
      const stale = [...have.keys()].filter((n) => have.get(n) !== wanted.get(n));
      const build = new Set(indexes.filter((i) => have.get(i.name) !== wanted.get(i.name)).map((i) => i.name));
      const entries: Key[][] = [];
      for (const { value: doc } of docs.getRange({ start: [name], end: [name, MAX] })) {
        try {
          for (const k of entriesOf(doc)) if (build.has(k[1] as string)) entries.push(k);
        } catch (e) {
          return fail(e);
        }
      }
      for (const n of [...stale, ...build]) {
        for (const key of [...sidx.getKeys({ start: [name, n], end: [name, n, MAX] })]) sidx.removeSync(key);
        meta.removeSync(['sidx', name, n]);
      }
      for (const k of entries) sidx.putSync(k, 1);
      for (const n of build) meta.putSync(['sidx', name, n], wanted.get(n));
      return ok(undefined);
    });
  }

  return {
    collection<T extends object>(spec: CollectionSpec): Collection<T> {
      checkOpen();
      return openCollection(spec) as unknown as Collection<T>;
    },
    async ping(): Promise<void> {
      checkOpen();
      meta.get(['format']);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await root.close();
    },
  };
}
