/**
 * Distributed mode: one subgraph asking another's GraphQL as the caller (the request carries the
 * caller's principal signed with the internal secret), so the other subgraph answers from the
 * caller's account only. A failure to answer is UNAVAILABLE: the caller retries; it is never taken
 * as "not found".
 */
import { AppError } from '../errors.js';
import { INTERNAL_TOKEN_HEADER, type InternalTokens, type Principal } from '../auth/principal.js';
import { coalesce, coalesceLookups } from '../coalesce.js';

export interface SubgraphTarget {
  /** The subgraph's base URL; /graphql is appended. */
  url: string;
  tokens: InternalTokens;
  timeoutMs?: number;
}

export async function querySubgraphAs<T>(t: SubgraphTarget, caller: Principal, query: string, variables: Record<string, unknown>, what: string): Promise<T> {
  const res = await fetch(new URL('/graphql', t.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await t.tokens.sign(caller) },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(t.timeoutMs ?? 5000),
  }).catch(() => null);
  const body = res?.ok ? ((await res.json().catch(() => null)) as { data?: T } | null) : null;
  if (!body?.data) throw new AppError('UNAVAILABLE', `${what} could not be checked; retry`);
  return body.data;
}

export type SubgraphQuery = <T>(t: SubgraphTarget, caller: Principal, query: string, variables: Record<string, unknown>, what: string) => Promise<T>;

/**
 * querySubgraphAs for reads whose answer depends on the caller's account and policies only, not on
 * who asks (a screen's content, an account's time zone): identical reads of one account in flight at
 * once share one request (coalesce: each caller's answer was fetched after it asked). After an edit
 * every screen of the account computes its manifest at once; this makes that one content request
 * per wave instead of one per screen (issue 39, the distributed capacity scenario).
 */
export function sharedSubgraphQuery(): SubgraphQuery {
  const shared = coalesce<unknown>();
  return <T>(t: SubgraphTarget, caller: Principal, query: string, variables: Record<string, unknown>, what: string) =>
    shared(JSON.stringify([t.url, ...readerOf(caller), query, variables]), () => querySubgraphAs<T>(t, caller, query, variables, what)) as Promise<T>;
}

/**
 * What an account-scoped read's answer depends on: the account and what the caller may read, not who
 * it is; and the credential it came with (the other subgraph may refuse a revoked one), so callers
 * share a request only under the same credential or none (screens, internal callers).
 */
const readerOf = (p: Principal) => [p.accountId, [...p.policies].sort(), [...p.roles].sort(), p.isOwner, p.via, p.credential ?? null];

/**
 * The same for lookups by id (a screen's own device record): ids asked by one account's callers
 * while a lookup runs are looked up together in one follow-up request of at most `maxIds` ids.
 */
export interface LookupRequest<T, V> {
  query: string;
  /** The request's variables for these ids. */
  variables(ids: string[]): Record<string, unknown>;
  /** Its answer, by id. */
  byId(data: T): Map<string, V>;
  what: string;
}
export type SubgraphLookup<V> = <T>(t: SubgraphTarget, caller: Principal, ids: readonly string[], request: LookupRequest<T, V>) => Promise<Map<string, V>>;

export function sharedSubgraphLookup<V>(maxIds: number): SubgraphLookup<V> {
  const shared = coalesceLookups<V>(maxIds);
  return <T>(t: SubgraphTarget, caller: Principal, ids: readonly string[], r: LookupRequest<T, V>) =>
    shared(JSON.stringify([t.url, ...readerOf(caller), r.query]), ids, async (all) =>
      r.byId(await querySubgraphAs<T>(t, caller, r.query, r.variables(all), r.what)),
    );
}
