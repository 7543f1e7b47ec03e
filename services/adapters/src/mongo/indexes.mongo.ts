/**
 * Index management of the MongoDB documents adapter, written for rolling deploys (two versions of
 * a service running against one database) and read against the mongodb 7.8 driver:
 *
 * - Declared indexes are matched by key and options, not by name: an index renamed with the same
 *   keys is the same index, and one left by another version under another name is reused.
 * - Serving processes ('create') only create what is missing. When the declared name is held by a
 *   different definition (error 85 IndexOptionsConflict / 86 IndexKeySpecsConflict, what the old
 *   code answered by dropping the *new* name, which did not exist), the index is created under a
 *   name suffixed with a hash of its definition, so old and new replicas both keep theirs.
 * - Only the migrations job ('migrate') drops: our `uniq_` / `idx_` indexes no declared index
 *   matches by key, and ones whose options changed, then creates the declared ones.
 */
import { createHash } from 'node:crypto';
import type mongoose from 'mongoose';
import type { IndexSpec } from '@pylon/kit/ports/documents';

export type IndexMode = 'create' | 'migrate';

export interface WantedIndex {
  /** The logical name (the spec's), reported in duplicate-key errors. */
  logical: string;
  /** The name it gets when created: `uniq_<name>`, `idx_<name>` or `tenant_id`. */
  name: string;
  key: Map<string, 1>;
  unique: boolean;
  partialFilterExpression?: Record<string, unknown>;
}

type NativeCollection = mongoose.mongo.Collection<mongoose.mongo.Document>;
interface ListedIndex {
  name?: unknown;
  key?: Record<string, unknown>;
  unique?: unknown;
  partialFilterExpression?: unknown;
}

/** Prefixes of the indexes this adapter owns (and the migrations job may drop). */
const OWNED = /^(uniq_|idx_)/;
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;
const CONFLICT_CODES = new Set([85, 86]);

function errorCode(e: unknown): unknown {
  return typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
}

const keyOf = (k: Map<string, 1> | Record<string, unknown> | undefined): string => JSON.stringify(k instanceof Map ? [...k] : Object.entries(k ?? {}));
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
const sameOptions = (w: WantedIndex, ix: ListedIndex): boolean =>
  (ix.unique === true) === w.unique && canonical(ix.partialFilterExpression ?? null) === canonical(w.partialFilterExpression ?? null);
const definitionHash = (w: WantedIndex): string =>
  createHash('sha256')
    .update(keyOf(w.key) + canonical({ u: w.unique, p: w.partialFilterExpression ?? null }))
    .digest('hex')
    .slice(0, 8);

async function listIndexes(c: NativeCollection): Promise<ListedIndex[]> {
  try {
    return (await c.listIndexes().toArray()) as ListedIndex[];
  } catch (e) {
    // A collection that does not exist yet has no indexes.
    if (errorCode(e) === NAMESPACE_NOT_FOUND) return [];
    throw e;
  }
}

async function dropIndex(c: NativeCollection, name: string): Promise<void> {
  try {
    await c.dropIndex(name);
  } catch (e) {
    // Another process dropped it first.
    if (errorCode(e) !== INDEX_NOT_FOUND) throw e;
  }
}

const options = (w: WantedIndex, name: string) => ({
  name,
  ...(w.unique ? { unique: true } : {}),
  ...(w.partialFilterExpression ? { partialFilterExpression: w.partialFilterExpression } : {}),
});

/**
 * Brings a collection's indexes to the declared ones; answers the MongoDB index name under
 * which each declared index exists (logical name by index name, for duplicate-key errors).
 */
export async function ensureMongoIndexes(c: NativeCollection, wanted: WantedIndex[], mode: IndexMode): Promise<Map<string, string>> {
  const logicalByName = new Map<string, string>();
  let existing = await listIndexes(c);
  if (mode === 'migrate') {
    // Drop what no declared index matches (by key and options) before creating.
    for (const ix of existing) {
      const name = typeof ix.name === 'string' ? ix.name : '';
      if (!OWNED.test(name) && !wanted.some((w) => w.name === name)) continue;
      const matches = wanted.some((w) => keyOf(w.key) === keyOf(ix.key) && sameOptions(w, ix));
      const duplicate = wanted.some((w) => keyOf(w.key) === keyOf(ix.key) && sameOptions(w, ix) && w.name !== name && existing.some((o) => o.name === w.name));
      if (!matches || duplicate) await dropIndex(c, name);
    }
    existing = await listIndexes(c);
  }
  for (const w of wanted) {
    const have = existing.find((ix) => keyOf(ix.key) === keyOf(w.key) && sameOptions(w, ix) && typeof ix.name === 'string');
    if (have) {
      logicalByName.set(have.name as string, w.logical);
      continue;
    }
    try {
      await c.createIndex(w.key, options(w, w.name));
      logicalByName.set(w.name, w.logical);
    } catch (e) {
      if (!CONFLICT_CODES.has(errorCode(e) as number)) throw e;
      // The name is held by another definition (an older or newer version of this service).
      const alt = `${w.name}_${definitionHash(w)}`;
      await c.createIndex(w.key, options(w, alt));
      logicalByName.set(alt, w.logical);
    }
  }
  return logicalByName;
}

export const TENANT_ID_INDEX = 'tenant_id';
export const UNIQUE_PREFIX = 'uniq_';
/** Secondary indexes: {accountId, ...fields, id}, so equality prefix + sort + id paging is one index walk. */
const SECONDARY_PREFIX = 'idx_';

/** A unique index of a collection spec with its scope resolved. */
export interface ResolvedIndex extends IndexSpec {
  scope: 'tenant' | 'global';
}

/** Every index a collection declares, as MongoDB indexes (tenant id, unique, secondary). */
export function wantedIndexes(unique: ResolvedIndex[], secondary: Array<{ name: string; fields: string[]; sparse?: boolean }>): WantedIndex[] {
  const out: WantedIndex[] = [
    {
      logical: 'id',
      name: TENANT_ID_INDEX,
      key: new Map<string, 1>([
        ['accountId', 1],
        ['id', 1],
      ]),
      unique: true,
    },
  ];
  for (const idx of unique) {
    out.push({
      logical: idx.name,
      name: `${UNIQUE_PREFIX}${idx.name}`,
      key: indexKey(idx),
      unique: true,
      partialFilterExpression: Object.fromEntries(idx.fields.map((f) => [f, { $exists: true }])),
    });
  }
  for (const idx of secondary) {
    const key = new Map<string, 1>([['accountId', 1]]);
    for (const f of idx.fields) key.set(f, 1);
    key.set('id', 1);
    const last = idx.fields[idx.fields.length - 1] as string;
    out.push({
      logical: idx.name,
      name: `${SECONDARY_PREFIX}${idx.name}`,
      key,
      unique: false,
      ...(idx.sparse ? { partialFilterExpression: { [last]: { $exists: true } } } : {}),
    });
  }
  return out;
}

function indexKey(idx: ResolvedIndex): Map<string, 1> {
  const key = new Map<string, 1>();
  if (idx.scope === 'tenant') key.set('accountId', 1);
  for (const f of idx.fields) key.set(f, 1);
  return key;
}
