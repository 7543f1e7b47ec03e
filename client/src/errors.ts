/**
 * Errors as values: every call answers a Result, never throws for what the API said. The kinds an
 * agent or a script branches on are few and stable; `code` is Pylon's stable error code
 * (VALIDATION_FAILED, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, ...) whatever the interface.
 */

export type PylonError =
  /** A REST answer outside 2xx, with the `{ error: { code, message } }` envelope (or the status alone). */
  | { kind: 'http'; status: number; code: string; message: string; details?: unknown }
  /** GraphQL errors (authentication, policy, validation, a resolver's refusal). */
  | { kind: 'graphql'; status: number; code: string; message: string; errors: GraphQLErrorLike[] }
  /** A mutation's expected failure: `{ success: false, error, errorCode }`. */
  | { kind: 'payload'; code: string; message: string; field?: string | undefined }
  /** No answer at all (refused connection, timeout, a body that is not JSON). */
  | { kind: 'network'; code: 'NETWORK'; message: string };

export interface GraphQLErrorLike {
  message: string;
  path?: readonly (string | number)[];
  extensions?: Record<string, unknown>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: PylonError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: PylonError): Result<T> => ({ ok: false, error });

/** The stable code of a REST status when the body carries none. */
const STATUS_CODES: Record<number, string> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
};

/** A REST error answer as a PylonError (the envelope when there is one). */
export function httpError(status: number, body: unknown): PylonError {
  const e = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  const gql = (body as { errors?: GraphQLErrorLike[] } | undefined)?.errors?.[0];
  const code =
    typeof e?.code === 'string' ? e.code : typeof gql?.extensions?.code === 'string' ? gql.extensions.code : (STATUS_CODES[status] ?? `HTTP_${status}`);
  const message = typeof e?.message === 'string' ? e.message : (gql?.message ?? `HTTP ${status}`);
  return { kind: 'http', status, code, message, ...(e?.details !== undefined ? { details: e.details } : {}) };
}

/** GraphQL errors as one PylonError: the first error's code and message, every error kept. */
export function graphqlError(status: number, errors: GraphQLErrorLike[]): PylonError {
  const first = errors[0];
  const code = typeof first?.extensions?.code === 'string' ? first.extensions.code : (STATUS_CODES[status] ?? 'GRAPHQL_ERROR');
  return { kind: 'graphql', status, code, message: first?.message ?? `HTTP ${status}`, errors };
}

/** A mutation payload's `{ success, error, errorCode }` as a Result of the payload itself. */
export function payload<P extends { success: boolean; error?: string | null; errorCode?: string | null; errorField?: string | null }>(
  p: P | null | undefined,
): Result<P> {
  if (!p) return fail({ kind: 'payload', code: 'NO_PAYLOAD', message: 'the mutation answered nothing' });
  if (p.success) return ok(p);
  return fail({ kind: 'payload', code: p.errorCode ?? 'FAILED', message: p.error ?? 'the mutation failed', field: p.errorField ?? undefined });
}

/** One line for people and agents: `FORBIDDEN: ...`. */
export const describeError = (e: PylonError) => `${e.code}: ${e.message}`;
