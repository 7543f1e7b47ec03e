/**
 * Index (re)builds of the embedded store: `meta` remembers each index's definition
 * (['idx' | 'sidx', collection, index]), so an index that is new or changed since the last run is
 * built from the stored documents on first use, and a removed one is dropped. Each build is one
 * write transaction that computes everything before writing anything.
 */
import type { SecondaryIndexSpec } from '@pylon/kit/ports/documents';
import { fail, MAX, ok, type Key, type LmdbEnv, type Ref } from './documents.lmdb-env.js';
import type { ResolvedIndex, UniqueKey } from './documents.lmdb-unique.js';
import type { Doc } from '../documents/documents.shared.js';

/** The stored definitions of collection `name`'s indexes of one kind, and whether they match `wanted`. */
function storedDefinitions(env: LmdbEnv, kind: 'idx' | 'sidx', name: string, wanted: Map<string, string>) {
  const metaRange = { start: [kind, name] as Key, end: [kind, name, MAX] as Key };
  const current = (): Map<string, unknown> => {
    const m = new Map<string, unknown>();
    for (const { key, value } of env.meta.getRange(metaRange)) m.set((key as Key[])[2] as string, value);
    return m;
  };
  const upToDate = (have: Map<string, unknown>): boolean => have.size === wanted.size && [...wanted].every(([n, def]) => have.get(n) === def);
  return { current, upToDate };
}

/** Builds unique indexes that are new or changed since the last run and drops removed ones. */
export async function ensureUniqueIndexes(env: LmdbEnv, name: string, indexes: ResolvedIndex[], keysOf: (doc: Doc) => UniqueKey[]): Promise<void> {
  const { docs, uniq, meta } = env;
  const wanted = new Map(indexes.map((i) => [i.name, JSON.stringify({ fields: i.fields, scope: i.scope })]));
  const { current, upToDate } = storedDefinitions(env, 'idx', name, wanted);
  if (upToDate(current())) return;
  await env.write(() => {
    const have = current();
    if (upToDate(have)) return ok(undefined);
    const build = indexes.filter((i) => have.get(i.name) !== wanted.get(i.name));
    const drop = [...have.keys()].filter((n) => have.get(n) !== wanted.get(n));
    // Compute everything before writing anything.
    const buildNames = new Set(build.map((i) => i.name));
    const entries = new Map<string, { key: Key; ref: Ref }>();
    for (const { value: doc } of docs.getRange({ start: [name], end: [name, MAX] })) {
      let keys: UniqueKey[];
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
export async function ensureSecondaryIndexes(
  env: LmdbEnv,
  name: string,
  indexes: readonly SecondaryIndexSpec[],
  entriesOf: (doc: Doc) => Key[][],
): Promise<void> {
  const { docs, sidx, meta } = env;
  const wanted = new Map(indexes.map((i) => [i.name, JSON.stringify(i.fields)]));
  const { current, upToDate } = storedDefinitions(env, 'sidx', name, wanted);
  if (upToDate(current())) return;
  await env.write(() => {
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
