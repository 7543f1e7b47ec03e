/**
 * A MediaDirectory that remembers answers for a short while: players report the same few files
 * thousands of times a day, so the hot ingestion path asks the content service about each file
 * about once per `ttlMs`. A rename (or a changed validity window) shows in new play logs after at most `ttlMs`; a file id that was
 * unknown is asked about again after the same time. Bounded to `maxEntries` (oldest evicted).
 */
import type { MediaDirectory, MediaFacts } from '../ports/media-directory.js';

export function cachedMediaDirectory(inner: MediaDirectory, o: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}): MediaDirectory {
  const ttlMs = o.ttlMs ?? 60_000;
  const maxEntries = o.maxEntries ?? 50_000;
  const now = o.now ?? Date.now;
  /** `${accountId}\n${fileId}` -> its facts (null: no such file) and when they were learnt. */
  const entries = new Map<string, { facts: MediaFacts | null; at: number }>();
  return {
    async files(accountId, fileIds) {
      const out = new Map<string, MediaFacts>();
      const missing: string[] = [];
      const t = now();
      for (const id of new Set(fileIds)) {
        const e = entries.get(`${accountId}\n${id}`);
        if (e && t - e.at < ttlMs) {
          if (e.facts !== null) out.set(id, e.facts);
        } else missing.push(id);
      }
      if (missing.length === 0) return out;
      const found = await inner.files(accountId, missing);
      for (const id of missing) {
        const key = `${accountId}\n${id}`;
        entries.delete(key);
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
        const facts = found.get(id) ?? null;
        entries.set(key, { facts, at: t });
        if (facts !== null) out.set(id, facts);
      }
      return out;
    },
  };
}
