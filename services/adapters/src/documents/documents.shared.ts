/**
 * Engine-independent pieces of the documents port, shared by the embedded (LMDB + mingo) and
 * the MongoDB adapters so both agree on validation, value normalisation, update paths, sort
 * order and unique-index semantics. What MongoDB does server-side and the embedded store must
 * do itself (applying updates, BSON sort order, unique-index keys) is in documents.mongo-emulation.ts.
 *
 * Semantics pinned here (and by the kit's src/contract/documents.contract.ts):
 * - Values are JSON-like: null, boolean, number, string, Date, arrays and plain objects.
 *   `undefined` object properties are dropped (array holes become null), like the MongoDB
 *   driver with `ignoreUndefined`.
 * - Sort follows MongoDB's BSON order (missing/null < numbers < strings < objects < arrays <
 *   booleans < dates); an array field sorts by its smallest element ascending and its largest
 *   descending; `id` ascending is always the final tie-breaker, so paging is deterministic
 *   and "no sort" means id order.
 * - A unique index only covers documents in which every indexed field is present (explicit null
 *   counts as present), like a MongoDB partial index with `$exists: true`.
 */
import { randomFillSync } from 'node:crypto';
import { AppError } from '@pylon/kit/errors';
import type { Collection, CollectionSpec, FindOptions, IndexSpec, Sort, UpdateSpec } from '@pylon/kit/ports/documents';

export type Doc = Record<string, unknown>;

export const META_FIELDS = ['id', 'accountId', 'version', 'createdAt', 'updatedAt'] as const;
const META = new Set<string>(META_FIELDS);

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** Longest tenant id / document id accepted (keeps embedded keys under the engine's key limit). */
export const MAX_KEY_CHARS = 256;

// ---------------------------------------------------------------------------------------------
// Validation

/** True for ids and tenant ids the store can hold: non-empty, bounded, no control characters. */
export function isValidKeyString(v: unknown): v is string {
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_KEY_CHARS) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

export function assertTenant(tenant: unknown): asserts tenant is string {
  if (!isValidKeyString(tenant)) throw new Error('documents: tenant id must be a non-empty string without control characters');
}

export function badId(): AppError {
  return new AppError('BAD_USER_INPUT', `id must be a non-empty string of at most ${MAX_KEY_CHARS} characters without control characters`, { field: 'id' });
}

/**
 * `__proto__` is no field name: assigning it to an object replaces the object's prototype instead
 * of storing a key (and decoders treat it differently), so a document or update carrying it
 * (usually JSON from a client) is refused as bad input naming the path.
 */
const PROTO_KEY = '__proto__';
function refuseProtoKey(path: string): AppError {
  return new AppError('BAD_USER_INPUT', `field name '${PROTO_KEY}' is not allowed (at '${path}')`, { field: path });
}

function assertPath(path: unknown, what: string): string[] {
  if (typeof path !== 'string' || path.length === 0) throw new Error(`documents: ${what} must be a non-empty dotted path`);
  const segs = path.split('.');
  for (const s of segs) {
    if (s === PROTO_KEY) throw refuseProtoKey(path);
    if (s.length === 0 || s.startsWith('$')) throw new Error(`documents: invalid ${what} '${path}'`);
  }
  return segs;
}

/** Validates a collection spec once, when the collection handle is created. */
export function validateCollectionSpec(spec: CollectionSpec): void {
  if (!spec || typeof spec.name !== 'string' || !NAME_RE.test(spec.name)) {
    throw new Error(`documents: invalid collection name '${String(spec?.name)}'`);
  }
  const seen = new Set<string>();
  for (const idx of spec.uniqueIndexes ?? []) {
    if (typeof idx.name !== 'string' || !NAME_RE.test(idx.name)) throw new Error(`documents: invalid index name '${String(idx.name)}'`);
    if (seen.has(idx.name)) throw new Error(`documents: index '${idx.name}' declared twice on '${spec.name}'`);
    seen.add(idx.name);
    if (idx.scope !== undefined && idx.scope !== 'tenant' && idx.scope !== 'global') {
      throw new Error(`documents: index '${idx.name}' has an invalid scope`);
    }
    if (!Array.isArray(idx.fields) || idx.fields.length === 0) throw new Error(`documents: index '${idx.name}' needs at least one field`);
    const fields = new Set<string>();
    for (const f of idx.fields) {
      assertPath(f, `field of index '${idx.name}'`);
      if (f === 'accountId' || f.startsWith('accountId.') || f === '_id' || f.startsWith('_id.')) {
        throw new Error(`documents: index '${idx.name}' may not include '${f}' (use scope 'tenant')`);
      }
      for (const g of fields) {
        if (g === f || g.startsWith(`${f}.`) || f.startsWith(`${g}.`)) {
          throw new Error(`documents: index '${idx.name}' has overlapping fields '${g}' and '${f}'`);
        }
      }
      fields.add(f);
    }
  }
}

export function indexScope(idx: IndexSpec): 'tenant' | 'global' {
  return idx.scope ?? 'tenant';
}

/** Canonical JSON of a spec, to detect two different specs under one collection name. */
export function specSignature(spec: CollectionSpec): string {
  return JSON.stringify({
    name: spec.name,
    uniqueIndexes: (spec.uniqueIndexes ?? []).map((i) => ({ name: i.name, fields: [...i.fields], scope: indexScope(i) })),
  });
}

export interface PagedFind {
  sort: Array<[string, 1 | -1]>;
  skip: number;
  /** undefined = no limit. */
  limit: number | undefined;
}

/** Validates find options; sort keys are returned in order with `id` appended as tie-breaker. */
export function normalizeFindOptions(options: FindOptions | undefined): PagedFind {
  const sort: Array<[string, 1 | -1]> = [];
  const given: Sort = options?.sort ?? {};
  if (typeof given !== 'object' || given === null) throw new Error('documents: sort must be an object');
  for (const [path, dir] of Object.entries(given)) {
    assertPath(path, 'sort field');
    if (dir !== 1 && dir !== -1) throw new Error(`documents: sort direction for '${path}' must be 1 or -1`);
    sort.push([path, dir]);
  }
  if (!sort.some(([p]) => p === 'id')) sort.push(['id', 1]);
  const skip = options?.skip ?? 0;
  if (!Number.isInteger(skip) || skip < 0) throw new Error('documents: skip must be a non-negative integer');
  const limit = options?.limit;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw new Error('documents: limit must be a non-negative integer');
  return { sort, skip, limit };
}

const SCRIPT_OPERATORS = new Set(['$where', '$function', '$accumulator']);

function assertNoScripts(v: unknown, depth: number): void {
  if (depth > 64) throw new Error('documents: filter is nested too deeply');
  if (Array.isArray(v)) {
    for (const x of v) assertNoScripts(x, depth + 1);
  } else if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (SCRIPT_OPERATORS.has(k)) throw new Error(`documents: filter operator '${k}' is not allowed`);
      assertNoScripts(x, depth + 1);
    }
  }
}

/** A filter is a plain object without server-side script operators. */
export function assertFilter(filter: unknown): asserts filter is Doc | undefined {
  if (filter === undefined) return;
  if (!isPlainObject(filter)) throw new Error('documents: filter must be a plain object');
  assertNoScripts(filter, 0);
}

// ---------------------------------------------------------------------------------------------
// Values

export function isPlainObject(v: unknown): v is Doc {
  if (typeof v !== 'object' || v === null) return false;
  const p = Object.getPrototypeOf(v);
  // Realm-independent: a decoder may build objects with another realm's Object.prototype
  // (jest test files, vm contexts), whose own prototype is still null.
  return p === null || p === Object.prototype || (Object.getPrototypeOf(p) === null && Object.prototype.toString.call(v) === '[object Object]');
}

/** Deep copy into the supported value space; `undefined` means "absent". */
export function normalizeValue(v: unknown, path: string): unknown {
  switch (typeof v) {
    case 'undefined':
      return undefined;
    case 'string':
    case 'boolean':
    case 'number':
      return v;
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out: unknown[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const x = normalizeValue(v[i], `${path}.${i}`);
          out[i] = x === undefined ? null : x;
        }
        return out;
      }
      if (v instanceof Date) {
        if (Number.isNaN(v.getTime())) throw new Error(`documents: invalid Date at '${path}'`);
        return new Date(v.getTime());
      }
      if (isPlainObject(v)) {
        const out: Doc = {};
        for (const k of Object.keys(v)) {
          if (k === PROTO_KEY) throw refuseProtoKey(path ? `${path}.${k}` : k);
          const x = normalizeValue(v[k], path ? `${path}.${k}` : k);
          if (x !== undefined) out[k] = x;
        }
        return out;
      }
      break;
    }
    default:
      break;
  }
  const kind = typeof v === 'object' ? ((v as object).constructor?.name ?? 'object') : typeof v;
  throw new Error(`documents: unsupported value of type ${kind} at '${path}'`);
}

/** Builds the stored form of a new document (meta fields owned by the store win). */
export function prepareInsert(tenant: string, doc: unknown, id: string, now: string): Doc {
  if (!isPlainObject(doc)) throw new Error('documents: document must be a plain object');
  const body: Doc = {};
  for (const k of Object.keys(doc)) {
    if (META.has(k)) continue;
    if (k === PROTO_KEY) throw refuseProtoKey(k);
    if (k === '_id' || k.startsWith('$')) throw new Error(`documents: field name '${k}' is reserved`);
    const x = normalizeValue(doc[k], k);
    if (x !== undefined) body[k] = x;
  }
  return { id, accountId: tenant, ...body, version: 1, createdAt: now, updatedAt: now };
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const idRandom = Buffer.alloc(4096);
let idRandomPos = idRandom.length;
let idLastMs = 0;
let idSeq = 0;
let idPrefix = '';

/**
 * A new document id: a UUIDv7 (RFC 9562) string. Time-ordered with a per-process monotonic
 * counter, so ids generated later sort after earlier ones: new documents append to the end of a
 * tenant's key range / index instead of landing on random pages (random v4 UUIDs made bulk
 * inserts ~3x slower in LMDB), and "no sort" lists come out in creation order. 62 random bits.
 */
export function newId(): string {
  const now = Date.now();
  if (now > idLastMs) {
    idLastMs = now;
    idSeq = Math.floor(Math.random() * 0x400);
    idPrefix = '';
  } else if (++idSeq > 0xfff) {
    idLastMs++;
    idSeq = 0;
    idPrefix = '';
  }
  if (idPrefix === '') {
    const t = idLastMs.toString(16).padStart(12, '0');
    idPrefix = `${t.slice(0, 8)}-${t.slice(8, 12)}-7`;
  }
  if (idRandomPos + 8 > idRandom.length) {
    randomFillSync(idRandom);
    idRandomPos = 0;
  }
  const r = idRandom;
  const p = idRandomPos;
  idRandomPos += 8;
  return (
    idPrefix +
    (HEX[idSeq >> 8] as string).slice(1) +
    HEX[idSeq & 0xff] +
    '-' +
    HEX[0x80 | ((r[p] as number) & 0x3f)] +
    HEX[r[p + 1] as number] +
    '-' +
    HEX[r[p + 2] as number] +
    HEX[r[p + 3] as number] +
    HEX[r[p + 4] as number] +
    HEX[r[p + 5] as number] +
    HEX[r[p + 6] as number] +
    HEX[r[p + 7] as number]
  );
}

/** The id of a new document: the given one (validated) or a fresh UUID. */
export function resolveInsertId(doc: unknown, gen: () => string): string {
  const given = isPlainObject(doc) ? doc.id : undefined;
  if (given === undefined || given === null) return gen();
  if (!isValidKeyString(given)) throw badId();
  return given;
}

// ---------------------------------------------------------------------------------------------
// Updates

export interface UpdateOps {
  set: Array<[string[], unknown]>;
  unset: string[][];
  /** Normalised `$set` object (dotted keys), as sent to MongoDB. */
  setObject: Doc;
  unsetPaths: string[];
}

/** Validates an UpdateSpec: $set/$unset only, no store-owned fields, no conflicting paths. */
export function prepareUpdate(update: UpdateSpec): UpdateOps {
  if (!isPlainObject(update)) throw new Error('documents: update must be a plain object');
  for (const k of Object.keys(update)) {
    if (k !== '$set' && k !== '$unset') throw new Error(`documents: unsupported update operator '${k}'`);
  }
  const set: Array<[string[], unknown]> = [];
  const unset: string[][] = [];
  const setObject: Doc = {};
  const unsetPaths: string[] = [];
  const all: Array<[string, string[]]> = [];
  const check = (path: string, what: string): string[] => {
    const segs = assertPath(path, what);
    const head = segs[0] as string;
    if (META.has(head) || head === '_id') throw new Error(`documents: '${path}' is owned by the store and cannot be updated`);
    return segs;
  };
  if (update.$set !== undefined) {
    if (!isPlainObject(update.$set)) throw new Error('documents: $set must be a plain object');
    for (const [path, value] of Object.entries(update.$set)) {
      const segs = check(path, '$set path');
      const v = normalizeValue(value, path);
      if (v === undefined) continue;
      set.push([segs, v]);
      setObject[path] = v;
      all.push([path, segs]);
    }
  }
  if (update.$unset !== undefined) {
    if (!Array.isArray(update.$unset)) throw new Error('documents: $unset must be an array of paths');
    for (const path of update.$unset) {
      const segs = check(path, '$unset path');
      if (unsetPaths.includes(path)) continue;
      unset.push(segs);
      unsetPaths.push(path);
      all.push([path, segs]);
    }
  }
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const [pa, a] = all[i] as [string, string[]];
      const [pb, b] = all[j] as [string, string[]];
      const n = Math.min(a.length, b.length);
      let prefix = true;
      for (let k = 0; k < n; k++)
        if (a[k] !== b[k]) {
          prefix = false;
          break;
        }
      if (prefix) throw new Error(`documents: update paths '${pa}' and '${pb}' conflict`);
    }
  }
  return { set, unset, setObject, unsetPaths };
}

// ---------------------------------------------------------------------------------------------
// Unique index lookups

/** Validates the values of a findByUnique lookup: one scalar per indexed field. */
export function checkUniqueLookup(idx: IndexSpec, values: unknown[]): unknown[] {
  if (!Array.isArray(values) || values.length !== idx.fields.length) {
    throw new Error(`documents: index '${idx.name}' expects ${idx.fields.length} value(s)`);
  }
  return values.map((v, i) => {
    const ok = v === null || v instanceof Date || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
    if (!ok) throw new Error(`documents: findByUnique value for '${idx.fields[i]}' must be a scalar`);
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// Errors

export function duplicateKey(collection: string, index: string | undefined): AppError {
  if (index === undefined || index === 'id') {
    return new AppError('DUPLICATE_KEY', index === 'id' ? `a document with this id already exists in '${collection}'` : `duplicate key in '${collection}'`, {
      collection,
      ...(index ? { index } : {}),
    });
  }
  return new AppError('DUPLICATE_KEY', `value already used for unique index '${index}' of '${collection}'`, { collection, index });
}

export function versionConflict(collection: string, id: string, expected: number, actual?: number): AppError {
  return new AppError(
    'VERSION_CONFLICT',
    `'${collection}' document '${id}' is at ${actual === undefined ? 'another' : `version ${actual}`}, expected version ${expected}`,
    { collection, id, expectedVersion: expected, ...(actual === undefined ? {} : { actualVersion: actual }) },
  );
}

export function assertExpectedVersion(v: unknown): void {
  if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1)) throw new Error('documents: expectedVersion must be a positive integer');
}

/** updateMany's input checked and each update prepared (both adapters), before any read or write. */
export function prepareUpdates(tenant: string, items: ReadonlyArray<{ id: string; update: UpdateSpec }>): Array<{ id: string; ops: UpdateOps }> {
  assertTenant(tenant);
  if (!Array.isArray(items)) throw new Error('documents: updateMany takes an array');
  return items.map((i) => ({ id: i.id, ops: prepareUpdate(i.update) }));
}

/** A collection as the port hands it out: a plain object of own functions (callers may pass them around), whatever class implements it. */
export function asCollection(c: Collection<object>): Collection<object> {
  return {
    find: (tenant, filter, options) => c.find(tenant, filter, options),
    findById: (tenant, id) => c.findById(tenant, id),
    count: (tenant, filter) => c.count(tenant, filter),
    insert: (tenant, doc) => c.insert(tenant, doc),
    insertMany: (tenant, docs) => c.insertMany(tenant, docs),
    deleteMany: (tenant, filter) => c.deleteMany(tenant, filter),
    update: (tenant, id, update, options) => c.update(tenant, id, update, options),
    updateMany: (tenant, items) => c.updateMany(tenant, items),
    delete: (tenant, id, options) => c.delete(tenant, id, options),
    findByUnique: (index, values) => c.findByUnique(index, values),
  };
}
