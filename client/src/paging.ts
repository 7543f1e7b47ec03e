/**
 * Paging helpers. Pylon pages two ways: REST lists answer a bare array with RFC 8288 `Link`
 * headers (first, prev, next) and `X-Total-Count`; data-table rows (REST and GraphQL) answer a
 * page with an opaque `continuationToken`, null on the last page. Both helpers are async
 * iterators over items with a cap, so a caller never pulls a whole fleet by accident.
 */
import type { Result } from './errors.js';

/** `<url>; rel="next", <url>; rel="prev"` -> { next: url, prev: url } (urls as written, relative ones resolved against `base`). */
export function parseLink(header: string | null | undefined, base?: string): Record<string, string> {
  const links: Record<string, string> = {};
  if (!header) return links;
  for (const part of header.split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (!m) continue;
    const rel = /rel="?([^";]+)"?/.exec(m[2]!)?.[1];
    if (!rel) continue;
    for (const r of rel.split(/\s+/)) links[r] = base ? new URL(m[1]!, base).toString() : m[1]!;
  }
  return links;
}

/** One REST page: its items, the total the server counted, and the next page's URL (undefined: last page). */
export interface LinkedPage<T> {
  items: T[];
  total: number | undefined;
  next: string | undefined;
}

/** Items page after page, from the page at `first` while each names the next, up to `max` items. */
async function* follow<T>(
  first: string | undefined,
  fetchPage: (cursor: string | undefined) => Promise<Result<{ items: T[]; next: string | undefined }>>,
  max: number,
): AsyncGenerator<T, void, undefined> {
  let cursor = first;
  let yielded = 0;
  do {
    const page = await fetchPage(cursor);
    if (!page.ok) throw new PagingError(page.error);
    for (const item of page.value.items) {
      if (yielded >= max) return;
      yielded++;
      yield item;
    }
    cursor = page.value.next;
  } while (cursor && yielded < max);
}

/**
 * Items of a Link-paged list, following `rel="next"` until the last page or `max` items.
 * `fetchPage` gets the first URL, then each next link (absolute).
 */
export async function* followLinks<T>(
  first: string,
  fetchPage: (url: string) => Promise<Result<LinkedPage<T>>>,
  max = 1000,
): AsyncGenerator<T, void, undefined> {
  if (first && max > 0) yield* follow(first, (url) => fetchPage(url!), max);
}

/** A continuation-token page, as data-table rows answer. */
export interface TokenPage<T> {
  data: T[];
  continuationToken?: string | null | undefined;
}

/** Items of a continuation-token list, page after page until the token is null or `max` items. */
export async function* followTokens<T>(
  fetchPage: (token: string | undefined) => Promise<Result<TokenPage<T>>>,
  max = 1000,
): AsyncGenerator<T, void, undefined> {
  yield* follow(
    undefined,
    async (token) => {
      const page = await fetchPage(token);
      return page.ok ? { ok: true, value: { items: page.value.data, next: page.value.continuationToken ?? undefined } } : page;
    },
    max,
  );
}

/** Collects an async iterator (already capped by its `max`). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A page that failed in the middle of an iteration: iterators cannot answer a Result, so this carries it. */
export class PagingError extends Error {
  constructor(readonly error: import('./errors.js').PylonError) {
    super(`${error.code}: ${error.message}`);
    this.name = 'PagingError';
  }
}
