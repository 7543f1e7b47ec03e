/** Inserting a document that a concurrent writer (or an earlier call) may have inserted already. */
import type { Collection, Stored } from './ports/documents.js';

/** Whether `e` is the documents port's DUPLICATE_KEY (its id, or one of its unique keys, is taken). */
export const isDuplicateKey = (e: unknown): boolean => (e as { code?: unknown } | null)?.code === 'DUPLICATE_KEY';

/** Inserts `doc`; null when a document with its id (or one of its unique keys) is there already. */
export async function insertUnlessPresent<T extends object>(c: Collection<T>, tenant: string, doc: T & { id?: string }): Promise<Stored<T> | null> {
  try {
    return await c.insert(tenant, doc);
  } catch (e) {
    if (isDuplicateKey(e)) return null;
    throw e;
  }
}
