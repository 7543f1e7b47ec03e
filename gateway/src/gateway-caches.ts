/**
 * The gateway's own per-document caches, bounded by entries and by an estimate of their real heap
 * (issue 34, M1). Apollo Server's parsed-document store, @apollo/gateway's query-plan store and the
 * automatic-persisted-query store default to an LRU sized by JSON length; a DocumentNode holds about
 * five times its JSON on the heap (its tokens and locations), a QueryPlan two to six times, and none
 * of them bounds the number of entries. Every one of them is keyed by text a caller chooses.
 *
 * Measured on graphql-js 16 / federation 2.14 with --expose-gc (2,000 distinct documents each):
 * a 48-character device query: its DocumentNode 6.1 KB (JSON 1.2 KB), its plan 1.0 KB (JSON 167 B);
 * a 240-character six-subgraph query: 20 KB (JSON 4.7 KB) and 2.3 KB (JSON 885 B).
 *
 * The single-fetch executor keeps its plans in a WeakMap keyed by the stored DocumentNode
 * (single-fetch.executor.ts), so it is bounded by the document store.
 */
import type { DocumentNode } from 'graphql';
import { createBoundedCache, PARSED_BYTES_PER_CHAR, type BoundedCache } from '@pylon/kit/graphql/bounded-cache';

export interface CacheBounds {
  maxEntries: number;
  maxBytes: number;
}

/** Per entry beyond its content: the key (a SHA-256 in hex, prefixed), the map slot, the LRU bookkeeping. */
const ENTRY_OVERHEAD = 1024;

/** A parsed document's heap: ~100 bytes per character of its text (tokens, nodes, locations). */
export const documentBytes = (doc: DocumentNode): number => ENTRY_OVERHEAD + PARSED_BYTES_PER_CHAR * (doc.loc?.source.body.length ?? 0);

/** A query plan's heap: counted as three times its JSON plus the entry overhead (measured 2-6x its JSON, see above). */
export const planBytes = (plan: unknown): number => ENTRY_OVERHEAD + 3 * (JSON.stringify(plan)?.length ?? 0);

/** A string's heap (two bytes per character at most). */
export const textBytes = (value: unknown): number => ENTRY_OVERHEAD + 2 * (typeof value === 'string' ? value.length : (JSON.stringify(value)?.length ?? 0));

/**
 * Apollo's KeyValueCache (@apollo/utils.keyvaluecache, structurally) over kit's bounded LRU; `has`
 * for the plan-limit plugin, `clear` for the gateway's schema updates.
 */
export interface BoundedKeyValueCache<V> {
  get(key: string): Promise<V | undefined>;
  set(key: string, value: V): Promise<void>;
  delete(key: string): Promise<boolean>;
  has(key: string): boolean;
  clear(): void;
  readonly cache: BoundedCache<V>;
}

/** TTLs (Apollo's persisted-query option) are not honoured: entries leave by the LRU bounds only. */
export function boundedKeyValueCache<V>(bounds: CacheBounds, bytesOf: (value: V) => number): BoundedKeyValueCache<V> {
  const cache = createBoundedCache<V>(bounds);
  return {
    cache,
    get: async (key) => cache.get(key),
    set: async (key, value) => cache.set(key, value, bytesOf(value)),
    delete: async (key) => cache.delete(key),
    has: (key) => cache.has(key),
    clear: () => cache.clear(),
  };
}

export interface GatewayCaches {
  documents: BoundedKeyValueCache<DocumentNode>;
  plans: BoundedKeyValueCache<unknown>;
  persistedQueries: BoundedKeyValueCache<string>;
}

/** One budget for each of the three caches. */
export function createGatewayCaches(bounds: CacheBounds): GatewayCaches {
  return {
    documents: boundedKeyValueCache(bounds, documentBytes),
    plans: boundedKeyValueCache<unknown>(bounds, planBytes),
    persistedQueries: boundedKeyValueCache<string>(bounds, textBytes),
  };
}
