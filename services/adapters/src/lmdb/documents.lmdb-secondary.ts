/**
 * Secondary indexes of one collection in the embedded store: `sidx` holds
 * [collection, index, accountId, ...values, id] -> 1, one entry per document and index; each value
 * is encoded as (BSON type rank, number or string prefix) so key order is the port's sort order.
 * `walk` reads documents in index order over a range (the planning is in documents.indexes.ts and
 * documents.lmdb-query.ts).
 */
import type { SecondaryIndexSpec } from '@pylon/kit/ports/documents';
import { indexValuesOf, skipsSparse, type IndexPlan, type NumericBounds, type Scalar } from '../documents/documents.indexes.js';
import { MAX, type Key, type LmdbEnv } from './documents.lmdb-env.js';
import { sortDocs } from './documents.mongo-emulation.js';
import type { Doc } from '../documents/documents.shared.js';

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
export interface WalkRange {
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
export function walkRange(dir: 1 | -1, after: Scalar | undefined, bounds: NumericBounds | null): WalkRange | undefined {
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

/** The secondary indexes of collection `name`: entries, their writes, and ordered walks. */
export function secondaryIndexes(env: LmdbEnv, name: string, secondary: readonly SecondaryIndexSpec[]) {
  const { docs, sidx } = env;
  const docKey = (tenant: string, id: string): Key => [name, tenant, id];

  /** The key prefix of `values` in `idx`; `cut` when a string was cut to INDEX_STRING_CHARS. */
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

  return {
    entryPrefix,
    entriesOf,
    walk,
    putEntries(keys: Key[][]): void {
      for (const k of keys) sidx.putSync(k, 1);
    },
    removeEntries(keys: Key[][]): void {
      for (const k of keys) sidx.removeSync(k);
    },
  };
}

export type SecondaryIndexes = ReturnType<typeof secondaryIndexes>;
