/** Reading one document that the caller named by id. */
import { notFound } from './errors.js';
import type { Collection, Stored } from './ports/documents.js';

/**
 * The tenant's document `id`, or NOT_FOUND naming `what` and the id (cut to 100 characters): a
 * foreign id reads exactly like an unknown one.
 */
export async function findOrNotFound<T extends object>(c: Collection<T>, tenant: string, id: string, what: string): Promise<Stored<T>> {
  const found = await c.findById(tenant, id);
  if (!found) throw notFound(what, id.slice(0, 100));
  return found;
}
