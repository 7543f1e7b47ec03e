/**
 * Secondary (non-unique) indexes and keyset paging of the documents port, shared by the embedded
 * and MongoDB adapters: spec validation, the scalar rule for indexed fields, the filter that
 * expresses `FindOptions.after`, and the plan the embedded adapter walks an index with.
 * Kept apart from documents.shared.ts so each adapter imports only what it uses.
 */
import type { CollectionSpec, Filter, SecondaryIndexSpec } from '@pylon/kit/ports/documents';
import { isPlainObject, specSignature, validateCollectionSpec, type Doc } from './documents.shared.js';

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export function validateSecondaryIndexes(spec: CollectionSpec): SecondaryIndexSpec[] {
  const out: SecondaryIndexSpec[] = [];
  const names = new Set((spec.uniqueIndexes ?? []).map((i) => i.name));
  for (const idx of spec.indexes ?? []) {
    if (typeof idx.name !== 'string' || !NAME_RE.test(idx.name)) throw new Error(`documents: invalid index name '${String(idx.name)}'`);
    if (names.has(idx.name)) throw new Error(`documents: index '${idx.name}' declared twice on '${spec.name}'`);
    names.add(idx.name);
    if (!Array.isArray(idx.fields) || idx.fields.length === 0) throw new Error(`documents: index '${idx.name}' needs at least one field`);
    for (const f of idx.fields) {
      if (typeof f !== 'string' || f.length === 0 || f.split('.').some((s) => s.length === 0 || s.startsWith('$'))) {
        throw new Error(`documents: invalid field '${String(f)}' of index '${idx.name}'`);
      }
      if (f === 'id' || f === 'accountId' || f === '_id') throw new Error(`documents: index '${idx.name}' may not include '${f}' (it is implied)`);
    }
    out.push({ name: idx.name, fields: [...idx.fields], ...(idx.sparse ? { sparse: true } : {}) });
  }
  return out;
}

/** Signature of the secondary indexes, appended to the unique-index signature of a collection. */
export const secondarySignature = (indexes: SecondaryIndexSpec[]): string => JSON.stringify(indexes.map((i) => [i.name, i.fields, !!i.sparse]));

/** True when a sparse index's last field is absent: the document has no entry in it. */
export function skipsSparse(doc: Doc, idx: SecondaryIndexSpec): boolean {
  return !!idx.sparse && valueAt(doc, idx.fields[idx.fields.length - 1] as string) === undefined;
}

function requiresField(filter: Filter | undefined, field: string): boolean {
  const c = filter?.[field];
  return isPlainObject(c) && c.$exists === true;
}

export type Scalar = null | boolean | number | string | Date;

// Index paths are few and fixed; splitting them once matters on bulk writes (a path is read per
// document, per index, per write: it showed in the data-table batch-create profile).
const SEGMENTS = new Map<string, string[]>();
function segmentsOf(path: string): string[] {
  let segs = SEGMENTS.get(path);
  if (!segs) {
    segs = path.split('.');
    if (SEGMENTS.size < 10_000) SEGMENTS.set(path, segs);
  }
  return segs;
}

function valueAt(doc: Doc, path: string): unknown {
  let cur: unknown = doc;
  for (const seg of segmentsOf(path)) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

/** The indexed values of a document (missing = null); throws when one is an object or array. */
export function indexValuesOf(doc: Doc, idx: SecondaryIndexSpec, collection: string): Scalar[] {
  return idx.fields.map((f) => {
    const v = valueAt(doc, f);
    if (v === undefined || v === null) return null;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date) return v;
    throw new Error(`documents: field '${f}' of '${collection}' is indexed ('${idx.name}') and must hold a scalar`);
  });
}

const isScalar = (v: unknown): v is Scalar => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date;

/** The value a filter pins `field` to by plain equality (`{f: v}` or `{f: {$eq: v}}`), if any. */
export function equalityOf(filter: Filter | undefined, field: string): { value: Scalar } | null {
  if (!filter || !Object.prototype.hasOwnProperty.call(filter, field)) return null;
  const c = filter[field];
  if (isScalar(c)) return { value: c };
  if (isPlainObject(c) && Object.keys(c).length === 1 && Object.prototype.hasOwnProperty.call(c, '$eq') && isScalar(c.$eq)) return { value: c.$eq };
  return null;
}

/**
 * The ids a filter restricts `id` to, when it does so at its top level or in a top-level `$and`
 * clause (`{id: v}`, `{id: {$eq: v}}`, `{id: {$in: [...]}}`): the documents it can match are among
 * these, so a store reads them by key instead of scanning the tenant (then tests the whole filter).
 * Null when the filter does not pin ids.
 */
export function pinnedIds(filter: Filter | undefined): string[] | null {
  if (!filter) return null;
  const eq = equalityOf(filter, 'id');
  if (eq) return typeof eq.value === 'string' ? [eq.value] : [];
  const c = filter.id;
  if (isPlainObject(c) && Object.keys(c).length === 1 && Array.isArray(c.$in)) {
    // Only strings can equal a stored id; anything else in the list matches nothing.
    return [...new Set(c.$in.filter((v): v is string => typeof v === 'string'))];
  }
  if (Array.isArray(filter.$and)) {
    for (const clause of filter.$and) {
      const ids = isPlainObject(clause) ? pinnedIds(clause) : null;
      if (ids) return ids;
    }
  }
  return null;
}

/** Numeric bounds on one field: lo/hi with whether each excludes its value. */
export interface NumericBounds {
  lo?: number;
  loOpen?: boolean;
  hi?: number;
  hiOpen?: boolean;
}

/**
 * The numeric range a filter puts on `field` at its top level ($gt, $gte, $lt, $lte, $eq with
 * finite numbers, or a number itself), so an ordered walk of an index on that field can start at
 * the range and stop past it. Numbers only: their index order is plain numeric order, and a
 * numeric comparison matches no null, string or boolean (type bracketing), so entries outside the
 * numeric run can be skipped. Null when the filter puts no such bound.
 */
export function numericBoundsOf(filter: Filter | undefined, field: string): NumericBounds | null {
  if (!filter || !Object.prototype.hasOwnProperty.call(filter, field)) return null;
  const c = filter[field];
  const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (num(c)) return { lo: c, hi: c };
  if (!isPlainObject(c)) return null;
  const b: NumericBounds = {};
  for (const [op, v] of Object.entries(c)) {
    if (!num(v)) continue;
    if (op === '$eq' || op === '$gte' || op === '$gt') {
      const open = op === '$gt';
      if (b.lo === undefined || v > b.lo || (v === b.lo && open)) Object.assign(b, { lo: v, loOpen: open });
    }
    if (op === '$eq' || op === '$lte' || op === '$lt') {
      const open = op === '$lt';
      if (b.hi === undefined || v < b.hi || (v === b.hi && open)) Object.assign(b, { hi: v, hiOpen: open });
    }
  }
  return b.lo === undefined && b.hi === undefined ? null : b;
}

export interface IndexPlan {
  index: SecondaryIndexSpec;
  /** Values of the leading fields the filter pins by equality. */
  equal: Scalar[];
  /** True when walking the index (forward for 1, backward for -1) yields the requested order. */
  ordered: boolean;
  dir: 1 | -1;
}

/**
 * The index to walk for (filter, normalised sort): preferably one that yields the sort order
 * after an equality prefix; otherwise the one with the longest equality prefix (the caller sorts).
 * Null when no index has an equality prefix or order to offer.
 */
export function planIndex(indexes: SecondaryIndexSpec[], filter: Filter | undefined, sort: Array<[string, 1 | -1]>): IndexPlan | null {
  let best: IndexPlan | null = null;
  let bestScore = 0;
  const last = sort[sort.length - 1];
  const sortFields = last && last[0] === 'id' ? sort.slice(0, -1) : null;
  for (const index of indexes) {
    if (index.sparse && !requiresField(filter, index.fields[index.fields.length - 1] as string)) continue;
    const equal: Scalar[] = [];
    for (const f of index.fields) {
      const e = equalityOf(filter, f);
      if (!e) break;
      equal.push(e.value);
    }
    const rest = index.fields.slice(equal.length);
    let ordered = false;
    let dir: 1 | -1 = 1;
    if (sortFields && last) {
      dir = last[1];
      ordered = rest.length === sortFields.length && rest.every((f, i) => sortFields[i]?.[0] === f && sortFields[i]?.[1] === dir);
    }
    if (equal.length === 0 && !ordered) continue;
    // Order beats a longer prefix: it lets the walk stop at the page's end.
    const score = (ordered ? 1000 : 0) + equal.length;
    if (score > bestScore) {
      best = { index, equal, ordered, dir };
      bestScore = score;
    }
  }
  return best;
}

function strictlyAfter(field: string, value: unknown, dir: 1 | -1): Filter {
  if (dir === 1) return value === null ? { [field]: { $ne: null } } : { [field]: { $gt: value } };
  // Descending: null/missing sort lowest, so they follow every non-null value.
  return value === null ? { id: { $in: [] } } : { $or: [{ [field]: { $lt: value } }, { [field]: null }] };
}

/** The filter "strictly after `after` in `sort` order" (sort normalised, `after` aligned with it). */
export function afterFilter(sort: Array<[string, 1 | -1]>, after: unknown[]): Filter {
  if (!Array.isArray(after) || after.length !== sort.length) throw new Error(`documents: after must hold ${sort.length} value(s), one per sort field`);
  const branches: Filter[] = [];
  for (let i = 0; i < sort.length; i++) {
    const [field, dir] = sort[i] as [string, 1 | -1];
    const v = after[i];
    if (!isScalar(v)) throw new Error(`documents: after value for '${field}' must be a scalar`);
    const branch: Filter[] = [];
    for (let j = 0; j < i; j++) {
      const [f] = sort[j] as [string, 1 | -1];
      branch.push({ [f]: after[j] === null ? null : { $eq: after[j] } });
    }
    branch.push(strictlyAfter(field, v, dir));
    branches.push(branch.length === 1 ? (branch[0] as Filter) : { $and: branch });
  }
  return branches.length === 1 ? (branches[0] as Filter) : { $or: branches };
}

/** `filter` AND `extra`, without letting either widen the other. */
export function andFilters(filter: Filter | undefined, extra: Filter | undefined): Filter | undefined {
  const a = filter && Object.keys(filter).length > 0 ? filter : undefined;
  if (!extra) return a;
  return a ? { $and: [a, extra] } : extra;
}

/**
 * Refuses a $set that would put an object or array into an indexed field (the check
 * `indexValuesOf` makes on whole documents, for engines that apply updates server-side).
 */
export function assertIndexedSet(indexes: SecondaryIndexSpec[], set: Doc, collection: string): void {
  for (const [path, value] of Object.entries(set)) {
    for (const idx of indexes) {
      for (const f of idx.fields) {
        let v: unknown;
        if (path === f) v = value;
        else if (f.startsWith(`${path}.`)) v = isPlainObject(value) ? valueAt(value, f.slice(path.length + 1)) : undefined;
        else if (path.startsWith(`${f}.`)) v = {};
        else continue;
        if (v !== undefined && !isScalar(v)) throw new Error(`documents: field '${f}' of '${collection}' is indexed ('${idx.name}') and must hold a scalar`);
      }
    }
  }
}

/**
 * The collection handles of one store, by name: opening a name again returns the same handle, and
 * opening it with other indexes is a programming error. Shared by every document adapter.
 */
export function collectionHandles<H>(make: (spec: CollectionSpec) => H): (spec: CollectionSpec) => H {
  const byName = new Map<string, { signature: string; handle: H }>();
  return (spec) => {
    validateCollectionSpec(spec);
    const signature = specSignature(spec) + secondarySignature(validateSecondaryIndexes(spec));
    const known = byName.get(spec.name);
    if (known) {
      if (known.signature !== signature) throw new Error(`documents: collection '${spec.name}' was already opened with different unique indexes`);
      return known.handle;
    }
    const handle = make(spec);
    byName.set(spec.name, { signature, handle });
    return handle;
  };
}

/**
 * A collection's index build as a readiness gate: started at once; every operation awaits it.
 * A failed build (an election, a network blip, stored duplicates since removed) is not cached:
 * the next call builds again, so a transient failure does not break the collection until restart.
 */
export function indexReadiness(build: () => Promise<void>): { await: () => Promise<void>; readonly ready: boolean } {
  let pending: Promise<void> | undefined;
  let ready = false;
  const start = (): Promise<void> => {
    pending ??= build().then(
      () => {
        ready = true;
      },
      (e: unknown) => {
        pending = undefined;
        throw e;
      },
    );
    return pending;
  };
  start().catch(() => undefined); // surfaced by the next operation, which builds again
  return {
    await: () => (ready ? Promise.resolve() : start()),
    get ready() {
      return ready;
    },
  };
}
