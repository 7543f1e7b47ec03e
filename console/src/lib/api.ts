/**
 * Calls to Pylon's own API with the signed-in user's bearer token: GraphQL through the typed
 * documents graphql-codegen generates from the supergraph (src/gql), REST for files and reports.
 * An access token about to expire is renewed with the refresh token first (lib/auth); a 401 means
 * the session was revoked: the operator signs in again (same page after).
 */
import type { TypedDocumentString } from '../gql/graphql';
import { freshAccessToken, signIn } from './auth';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export async function authHeaders(): Promise<Record<string, string>> {
  const token = await freshAccessToken();
  if (!token) {
    void signIn();
    throw new ApiError('Your session has ended; signing in again.', 401);
  }
  return { authorization: `Bearer ${token}` };
}

/** Runs a typed document; GraphQL errors become one ApiError naming the first. */
export async function gql<R, V>(doc: TypedDocumentString<R, V>, ...[variables]: V extends Record<string, never> ? [] | [V] : [V]): Promise<R> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(await authHeaders()) },
    body: JSON.stringify({ query: doc.toString(), variables: variables ?? {} }),
  });
  if (res.status === 401) {
    void signIn();
    throw new ApiError('Your session has ended; signing in again.', 401);
  }
  const body = (await res.json().catch(() => null)) as { data?: R; errors?: { message: string; extensions?: { code?: string } }[] } | null;
  const first = body?.errors?.[0];
  if (first) throw new ApiError(first.message, res.status, first.extensions?.code);
  if (!res.ok || !body?.data) throw new ApiError(`The server answered HTTP ${res.status}.`, res.status);
  return body.data;
}

/** A REST call answering JSON (or nothing); errors carry the server's message. */
export async function rest<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(path, { ...init, headers: { accept: 'application/json', ...init.headers, ...(await authHeaders()) } });
  if (res.status === 401) {
    void signIn();
    throw new ApiError('Your session has ended; signing in again.', 401);
  }
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const message =
      (body as { message?: string; errors?: { message: string }[] } | undefined)?.message ?? (body as { errors?: { message: string }[] })?.errors?.[0]?.message;
    throw new ApiError(message ?? `The server answered HTTP ${res.status}.`, res.status);
  }
  return body as T;
}

/** Saves a response body as a file (reports): the browser's download, no new window. */
export async function download(path: string, body: unknown, fileName: string): Promise<void> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(await authHeaders()) }, body: JSON.stringify(body) });
  if (!res.ok) {
    const text = await res.text();
    let message = `The server answered HTTP ${res.status}.`;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      /* not JSON */
    }
    throw new ApiError(message, res.status);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
