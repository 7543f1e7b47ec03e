/**
 * MongoDB semantics the embedded store (documents.lmdb.ts) provides itself, where MongoDB does
 * them server-side: applying $set/$unset paths, BSON sort order and unique-index keys.
 * Validation and value rules both adapters share are in documents.shared.ts; the semantics are
 * pinned by the kit's src/contract/documents.contract.ts against both.
 */
import { createHash } from 'node:crypto';
import type { IndexSpec } from '@pylon/kit/ports/documents';
import { checkUniqueLookup, isPlainObject, type Doc, type UpdateOps } from '../documents/documents.shared.js';

// ---------------------------------------------------------------------------------------------
// Updates

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
      return `o${JSON.stringify(
        Object.entries(v as Doc)
          .filter(([, x]) => x !== undefined)
          .map(([k, x]) => [k, encodeIndexValue(x)]),
      )}`;
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
  return encodeTuple(checkUniqueLookup(idx, values));
}
