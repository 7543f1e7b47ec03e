/**
 * The client: one object over Pylon's two current APIs with the caller's credentials.
 *   - `rest`: openapi-fetch typed by schema/openapi/rest.yaml (paths, parameters, bodies, answers);
 *     `result(...)` turns its answer into a Result.
 *   - `graphql(document, variables)`: a typed document (client/src/operations/*.graphql, generated
 *     into `documents`) in, its typed data or a PylonError out.
 *   - `paginate(path)`: a REST list's items across pages, following `Link: rel="next"`, capped.
 *   - `fetch(path, init)`: the raw answer (uploads, CSV, the player manifest), credentials attached.
 * Credentials: an API key (X-Service-ApiKey) or an OAuth access token (Authorization: Bearer, a
 * string or a function asked before each request so a caller can refresh it). They are sent to
 * `baseUrl` only, and never part of an error message.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import { print } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { fail, graphqlError, httpError, ok, type GraphQLErrorLike, type Result } from './errors.js';
import { followLinks, parseLink, type LinkedPage } from './paging.js';
import type { paths } from './generated/rest-api.generated.js';

export type PylonAuth = { apiKey: string } | { bearer: string | (() => string | Promise<string>) };

export interface PylonClientOptions {
  /** The server, e.g. http://127.0.0.1:4000 (no trailing path). */
  baseUrl: string;
  auth: PylonAuth;
  /** Sent on every request (e.g. X-Pylon-Tool, which the audit trail records). */
  headers?: Record<string, string> | undefined;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: typeof fetch | undefined;
}

export interface PylonClient {
  readonly baseUrl: string;
  /** Typed REST (openapi-fetch over rest.yaml). */
  readonly rest: Client<paths>;
  /** An openapi-fetch answer as a Result (its typed data, or the error envelope as a PylonError). */
  result<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Result<T>>;
  /** A typed GraphQL operation. Errors (even with partial data) answer `ok: false`. */
  graphql<R, V>(document: TypedDocumentNode<R, V>, ...variables: V extends Record<string, never> ? [] | [V] : [V]): Promise<Result<R>>;
  /** The items of a Link-paged REST list (`/devices?take=50`), at most `max` (default 1000). */
  paginate<T>(path: string, max?: number): AsyncGenerator<T, void, undefined>;
  /** The raw answer for a path (or absolute URL of this server), with the credentials. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** The same client with more headers on every request. */
  withHeaders(headers: Record<string, string>): PylonClient;
}

export function createPylonClient(o: PylonClientOptions): PylonClient {
  const baseUrl = o.baseUrl.replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  const doFetch = o.fetch ?? globalThis.fetch;

  async function credentialHeaders(): Promise<Record<string, string>> {
    if ('apiKey' in o.auth) return { 'x-service-apikey': o.auth.apiKey };
    const token = typeof o.auth.bearer === 'function' ? await o.auth.bearer() : o.auth.bearer;
    return { authorization: `Bearer ${token}` };
  }

  /** Every request goes through here: only to this server, with credentials and the extra headers. */
  async function send(request: Request): Promise<Response> {
    if (new URL(request.url).origin !== origin) throw new Error(`refusing to send credentials to another origin than ${origin}`);
    const headers = new Headers(request.headers);
    for (const [k, v] of Object.entries({ ...o.headers, ...(await credentialHeaders()) })) headers.set(k, v);
    return doFetch(new Request(request, { headers }));
  }

  const rest = createFetchClient<paths>({ baseUrl, fetch: send });

  const absolute = (path: string) => (/^https?:\/\//.test(path) ? path : `${baseUrl}${path.startsWith('/') ? '' : '/'}${path}`);

  const client: PylonClient = {
    baseUrl,
    rest,
    async result<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Result<T>> {
      let answer;
      try {
        answer = await call;
      } catch (e) {
        return fail({ kind: 'network', code: 'NETWORK', message: e instanceof Error ? e.message : String(e) });
      }
      if (answer.response.ok) return ok(answer.data as T);
      return fail(httpError(answer.response.status, answer.error));
    },
    async graphql<R, V>(document: TypedDocumentNode<R, V>, ...args: unknown[]): Promise<Result<R>> {
      let res: Response;
      let body: { data?: R | null; errors?: GraphQLErrorLike[] };
      try {
        res = await send(
          new Request(`${baseUrl}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: print(document), variables: args[0] ?? {} }),
          }),
        );
        body = (await res.json()) as typeof body;
      } catch (e) {
        return fail({ kind: 'network', code: 'NETWORK', message: e instanceof Error ? e.message : String(e) });
      }
      if (body.errors?.length) return fail(graphqlError(res.status, body.errors));
      if (!res.ok || body.data == null) return fail(httpError(res.status, body));
      return ok(body.data);
    },
    paginate<T>(path: string, max = 1000) {
      return followLinks<T>(
        absolute(path),
        async (url): Promise<Result<LinkedPage<T>>> => {
          let res: Response;
          try {
            res = await send(new Request(url));
            const body: unknown = await res.json();
            if (!res.ok) return fail(httpError(res.status, body));
            const total = res.headers.get('x-total-count');
            return ok({ items: body as T[], total: total === null ? undefined : Number(total), next: parseLink(res.headers.get('link'), url).next });
          } catch (e) {
            return fail({ kind: 'network', code: 'NETWORK', message: e instanceof Error ? e.message : String(e) });
          }
        },
        max,
      );
    },
    fetch: (path, init) => send(new Request(absolute(path), init)),
    withHeaders: (headers) => createPylonClient({ ...o, headers: { ...o.headers, ...headers } }),
  };
  return client;
}
