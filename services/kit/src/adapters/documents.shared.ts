/**
 * Engine-independent pieces of the documents port, shared by the embedded (LMDB + mingo) and
 * the MongoDB adapters so both agree on validation, value normalisation, update paths, sort
 * order and unique-index semantics.
 *
 * Semantics pinned here (and by test/contract/documents.contract.ts):
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
import { createHash, randomFillSync } from 'node:crypto';
import { AppError } from '../errors.js';
import type { CollectionSpec, FindOptions, IndexSpec, Sort, UpdateSpec } from '../ports/documents.js';

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
  return new AppError(
    'BAD_USER_INPUT',
    `id must be a non-empty string of at most ${MAX_KEY_CHARS} characters without control characters`,
    { field: 'id' },
  );
}

function assertPath(path: unknown, what: string): string[] {
  if (typeof path !== 'string' || path.length === 0) throw new Error(`documents: ${what} must be a non-empty dotted path`);
  const segs = path.split('.');
  for (const s of segs) {
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
      for (let k = 0; k < n; k++) if (a[k] !== b[k]) { prefix = false; break; }
      if (prefix) throw new Error(`documents: update paths '${pa}' and '${pb}' conflict`);
    }
  }
  return { set, unset, setObject, unsetPaths };
}

const INDEX_RE = /^(0|[1-9][0-9]{0,8})$/;

function pathError(segs: string[], i: number): Error {
  return new Error(`documents: cannot create field '${segs.slice(i).join('.')}' under a non-object value at '${segs.slice(0, i).join('.') || '(root)'}'`);
}

/** Applies validated $set/$unset to `doc` in place, with MongoDB's path rules. */
export function applyUpdate(doc: Doc, ops: UpdateOps): void {
  for (const [segs, value] of ops.set) setPath(doc, segs, value);
  for (const segs of ops.unset) unsetPath(doc, segs);
}

function setPath(doc: Doc, segs: string[], value: unknown): void {
  let cur: unknown = doc;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as string;
    const last = i === segs.length - 1;
    if (Array.isArray(cur)) {
      if (!INDEX_RE.test(seg)) throw pathError(segs, i);
      const idx = Number(seg);
      while (cur.length < idx) cur.push(null);
      if (last) {
        cur[idx] = value;
        return;
      }
      if (cur[idx] === undefined) cur[idx] = {};
      cur = cur[idx];
    } else if (isPlainObject(cur)) {
      if (last) {
        cur[seg] = value;
        return;
      }
      if (cur[seg] === undefined) cur[seg] = {};
      cur = cur[seg];
    } else {
      throw pathError(segs, i);
    }
  }
}

function unsetPath(doc: Doc, segs: string[]): void {
  let cur: unknown = doc;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as string;
    const last = i === segs.length - 1;
    if (Array.isArray(cur)) {
      if (!INDEX_RE.test(seg)) return;
      const idx = Number(seg);
      if (idx >= cur.length) return;
      if (last) {
        cur[idx] = null;
        return;
      }
      cur = cur[idx];
    } else if (isPlainObject(cur)) {
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return;
      if (last) {
        delete cur[seg];
        return;
      }
      cur = cur[seg];
    } else {
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Ordering (MongoDB BSON comparison order)

/** Sort key of an empty array: below null/missing, as in MongoDB. */
const EMPTY_ARRAY = Symbol('emptyArray');

function typeRank(v: unknown): number {
  if (v === EMPTY_ARRAY) return 0;
  if (v === null || v === undefined) return 1;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    case 'object':
      if (Array.isArray(v)) return 5;
      if (v instanceof Date) return 9;
      if (v instanceof RegExp) return 11;
      return 4;
    default:
      return 12;
  }
}

/** Compares strings by Unicode code point (= UTF-8 byte order, MongoDB's binary collation). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF: they sort after 0xE000-0xFFFF.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 2: {
      const x = Number(a);
      const y = Number(b);
      const nx = Number.isNaN(x);
      const ny = Number.isNaN(y);
      if (nx || ny) return nx && ny ? 0 : nx ? -1 : 1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 3:
      return compareStrings(a as string, b as string);
    case 4: {
      const ea = Object.entries(a as Doc).filter(([, v]) => v !== undefined);
      const eb = Object.entries(b as Doc).filter(([, v]) => v !== undefined);
      const n = Math.min(ea.length, eb.length);
      for (let i = 0; i < n; i++) {
        const [ka, va] = ea[i] as [string, unknown];
        const [kb, vb] = eb[i] as [string, unknown];
        const tr = typeRank(va) - typeRank(vb);
        if (tr !== 0) return tr < 0 ? -1 : 1;
        const kc = compareStrings(ka, kb);
        if (kc !== 0) return kc;
        const vc = compareValues(va, vb);
        if (vc !== 0) return vc;
      }
      return ea.length === eb.length ? 0 : ea.length < eb.length ? -1 : 1;
    }
    case 5: {
      const xa = a as unknown[];
      const xb = b as unknown[];
      const n = Math.min(xa.length, xb.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(xa[i], xb[i]);
        if (c !== 0) return c;
      }
      return xa.length === xb.length ? 0 : xa.length < xb.length ? -1 : 1;
    }
    case 8:
      return a === b ? 0 : a ? 1 : -1;
    case 9: {
      const x = (a as Date).getTime();
      const y = (b as Date).getTime();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 11:
      return compareStrings(String(a), String(b));
    default:
      return 0;
  }
}

/**
 * Values a dotted path reaches, descending into arrays like MongoDB does (numeric segments
 * address array positions). A terminal array contributes its elements (an empty one the
 * EMPTY_ARRAY marker); a path that stops short contributes `missing`.
 */
function collectPath(node: unknown, segs: string[], i: number, out: unknown[], missing: unknown, state: { arrays: number; found: boolean }): void {
  if (i === segs.length) {
    state.found = true;
    if (Array.isArray(node)) {
      state.arrays++;
      if (node.length === 0) out.push(EMPTY_ARRAY);
      else for (const el of node) out.push(el);
    } else {
      out.push(node);
    }
    return;
  }
  const seg = segs[i] as string;
  if (Array.isArray(node)) {
    state.arrays++;
    if (INDEX_RE.test(seg)) {
      const el = node[Number(seg)];
      if (el === undefined) out.push(missing);
      else collectPath(el, segs, i + 1, out, missing, state);
      return;
    }
    for (const el of node) {
      if (isPlainObject(el)) {
        const child = el[seg];
        if (child === undefined) out.push(missing);
        else collectPath(child, segs, i + 1, out, missing, state);
      }
    }
    return;
  }
  if (isPlainObject(node)) {
    const child = node[seg];
    if (child === undefined) out.push(missing);
    else collectPath(child, segs, i + 1, out, missing, state);
    return;
  }
  out.push(missing);
}

function sortKey(doc: Doc, segs: string[], dir: 1 | -1): unknown {
  const vals: unknown[] = [];
  collectPath(doc, segs, 0, vals, null, { arrays: 0, found: false });
  if (vals.length === 0) return null;
  let best = vals[0];
  for (let i = 1; i < vals.length; i++) {
    const c = compareValues(vals[i], best);
    if (dir === 1 ? c < 0 : c > 0) best = vals[i];
  }
  return best;
}

/** Sorts documents in place by a normalised sort (see normalizeFindOptions). */
export function sortDocs<D extends Doc>(docs: D[], sort: Array<[string, 1 | -1]>): D[] {
  const specs = sort.map(([path, dir]) => ({ segs: path.split('.'), dir }));
  if (specs.length === 1 && specs[0]?.segs.length === 1 && specs[0].segs[0] === 'id') {
    const dir = specs[0].dir;
    return docs.sort((a, b) => dir * compareStrings(a.id as string, b.id as string));
  }
  const decorated = docs.map((d) => ({ d, k: specs.map((s) => sortKey(d, s.segs, s.dir)) }));
  decorated.sort((x, y) => {
    for (let i = 0; i < specs.length; i++) {
      const c = compareValues(x.k[i], y.k[i]);
      if (c !== 0) return (specs[i] as { dir: 1 | -1 }).dir * c;
    }
    return 0;
  });
  for (let i = 0; i < decorated.length; i++) docs[i] = (decorated[i] as { d: D }).d;
  return docs;
}

// ---------------------------------------------------------------------------------------------
// Unique index keys

function encodeIndexValue(v: unknown): string {
  if (v === EMPTY_ARRAY || v === undefined) return 'u';
  if (v === null) return 'n';
  switch (typeof v) {
    case 'number':
      return `d${Object.is(v, -0) ? 0 : v}`;
    case 'bigint':
      return `d${v}`;
    case 'string':
      return `s${v}`;
    case 'boolean':
      return v ? 'b1' : 'b0';
    case 'object':
      if (v instanceof Date) return `t${v.getTime()}`;
      if (Array.isArray(v)) return `a${JSON.stringify(v.map(encodeIndexValue))}`;
      return `o${JSON.stringify(Object.entries(v as Doc).filter(([, x]) => x !== undefined).map(([k, x]) => [k, encodeIndexValue(x)]))}`;
    default:
      return `x${String(v)}`;
  }
}

function encodeTuple(values: unknown[]): string {
  const s = JSON.stringify(values.map(encodeIndexValue));
  return s.length > 200 ? `h${createHash('sha256').update(s).digest('hex')}` : s;
}

/**
 * Encoded unique keys a document contributes to an index: one per combination of values (array
 * fields contribute each element, like a multikey index); none when a field is absent.
 */
export function uniqueKeysOf(doc: Doc, idx: IndexSpec): string[] {
  const perField: unknown[][] = [];
  let arrayFields = 0;
  for (const f of idx.fields) {
    const vals: unknown[] = [];
    const state = { arrays: 0, found: false };
    collectPath(doc, f.split('.'), 0, vals, null, state);
    if (!state.found) return [];
    if (state.arrays > 0) arrayFields++;
    perField.push(vals);
  }
  if (arrayFields > 1) throw new Error(`documents: index '${idx.name}' cannot index more than one array field in a document`);
  let tuples: unknown[][] = [[]];
  for (const vals of perField) {
    const next: unknown[][] = [];
    for (const t of tuples) for (const v of vals) next.push([...t, v]);
    tuples = next;
  }
  return [...new Set(tuples.map(encodeTuple))];
}

/** Encoded key for a findByUnique lookup. */
export function uniqueLookupKey(idx: IndexSpec, values: unknown[]): string {
  if (!Array.isArray(values) || values.length !== idx.fields.length) {
    throw new Error(`documents: index '${idx.name}' expects ${idx.fields.length} value(s)`);
  }
  return encodeTuple(
    values.map((v, i) => {
      const ok = v === null || v instanceof Date || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
      if (!ok) throw new Error(`documents: findByUnique value for '${idx.fields[i]}' must be a scalar`);
      return v;
    }),
  );
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
