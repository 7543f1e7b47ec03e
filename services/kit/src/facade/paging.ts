/** The one place REST/legacy paging (take = page size, page = 0-based page number) becomes GraphQL limit/offset. */
import { badInput } from '../errors.js';

/** GraphQL Int is 32-bit signed; larger values would fail variable coercion with no field name. */
export const GRAPHQL_INT_MAX = 2_147_483_647;

export interface PageWindow extends Record<string, unknown> {
  limit: number | undefined;
  offset: number | undefined;
}

/**
 * take/page -> limit/offset. Without `take` there is no limit (the service's default applies) and
 * `page` alone means nothing; `defaultTake` fills in a size when the interface has one.
 * `names` are the caller's parameter names, for the error (e.g. `{ take: 'limit' }` for audit events).
 */
export function pageWindow(take: unknown, page: unknown, opts: { defaultTake?: number; names?: { take?: string; page?: string } } = {}): PageWindow {
  const size = typeof take === 'number' ? take : opts.defaultTake;
  const index = typeof page === 'number' ? page : undefined;
  if (size === undefined) return { limit: undefined, offset: undefined };
  const offset = index === undefined ? (opts.defaultTake !== undefined ? 0 : undefined) : size * index;
  const takeName = opts.names?.take ?? 'take';
  if (offset !== undefined && offset > GRAPHQL_INT_MAX) throw badInput(opts.names?.page ?? 'page', `page * ${takeName} must be at most ${GRAPHQL_INT_MAX}`);
  return { limit: size, offset };
}
