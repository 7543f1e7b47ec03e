/**
 * A cache bounded by entries and by (estimated) bytes, least recently used out first (issue 34, M1):
 * one entry per distinct document text means a caller choosing the texts chooses the memory, and
 * 500 large documents cost far more than 500 small ones. `bytes` is an estimate of the heap an entry
 * holds (a parsed document: about 100 bytes per character of its text, measured on graphql-js 16).
 */
export interface BoundedCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, bytes: number): void;
  /** Whether the key is held, without making it recently used. */
  has(key: string): boolean;
  delete(key: string): boolean;
  clear(): void;
  /** The entries, least recently used first, without making any of them recently used. */
  entries(): IterableIterator<[string, V]>;
  readonly size: number;
  /** The estimated bytes held. */
  readonly bytes: number;
}

/** Heap bytes of a parsed document per character of its text (graphql-js 16, locations kept). */
export const PARSED_BYTES_PER_CHAR = 100;

export function createBoundedCache<V>(limits: { maxEntries: number; maxBytes: number }): BoundedCache<V> {
  const entries = new Map<string, { value: V; bytes: number }>();
  let total = 0;
  return {
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      // Most recently used last: eviction takes the first.
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key, value, bytes) {
      const old = entries.get(key);
      if (old) {
        total -= old.bytes;
        entries.delete(key);
      }
      // An entry larger than the whole budget is not kept (it is answered, only not remembered).
      if (bytes > limits.maxBytes) return;
      entries.set(key, { value, bytes });
      total += bytes;
      while (entries.size > limits.maxEntries || total > limits.maxBytes) {
        const [k, e] = entries.entries().next().value as [string, { value: V; bytes: number }];
        entries.delete(k);
        total -= e.bytes;
      }
    },
    has(key) {
      return entries.has(key);
    },
    delete(key) {
      const e = entries.get(key);
      if (!e) return false;
      entries.delete(key);
      total -= e.bytes;
      return true;
    },
    clear() {
      entries.clear();
      total = 0;
    },
    *entries() {
      for (const [k, e] of entries) yield [k, e.value];
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return total;
    },
  };
}
