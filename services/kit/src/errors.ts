/**
 * Stable error codes. This table is the one place that maps a code to its GraphQL
 * `extensions.code`, its HTTP status (current REST) and its legacy status. Messages never
 * name the storage engine.
 */
export const ERROR_CODES = {
  UNAUTHENTICATED: { graphql: 'UNAUTHENTICATED', http: 401 },
  METHOD_NOT_ALLOWED: { graphql: 'BAD_REQUEST', http: 405 },
  FORBIDDEN: { graphql: 'FORBIDDEN', http: 403 },
  NOT_FOUND: { graphql: 'NOT_FOUND', http: 404 },
  BAD_USER_INPUT: { graphql: 'BAD_USER_INPUT', http: 400 },
  VALIDATION_FAILED: { graphql: 'GRAPHQL_VALIDATION_FAILED', http: 400 },
  UNSUPPORTED_FORMAT: { graphql: 'BAD_USER_INPUT', http: 400 },
  PAYLOAD_TOO_LARGE: { graphql: 'BAD_USER_INPUT', http: 413 },
  UNSUPPORTED_MEDIA_TYPE: { graphql: 'BAD_USER_INPUT', http: 415 },
  UNPROCESSABLE: { graphql: 'BAD_USER_INPUT', http: 422 },
  DUPLICATE_KEY: { graphql: 'CONFLICT', http: 409 },
  VERSION_CONFLICT: { graphql: 'CONFLICT', http: 409 },
  RATE_LIMITED: { graphql: 'RATE_LIMITED', http: 429 },
  UNAVAILABLE: { graphql: 'SERVICE_UNAVAILABLE', http: 503 },
  /** A documented operation Pylon does not offer (e.g. POST /report/adhawk). */
  NOT_IMPLEMENTED: { graphql: 'NOT_IMPLEMENTED', http: 501 },
  INTERNAL: { graphql: 'INTERNAL_SERVER_ERROR', http: 500 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The code a current REST answer carries: one code per kind of fault (issue 35). Input the request
 * got wrong is VALIDATION_FAILED whether the OpenAPI check, a router or a use case (BAD_USER_INPUT,
 * GraphQL's code for it) found it.
 */
export const restCode = (code: ErrorCode): ErrorCode => (code === 'BAD_USER_INPUT' ? 'VALIDATION_FAILED' : code);

/** Legacy REST speaks the same statuses as current REST. */
export const legacyStatus = (code: ErrorCode): number => ERROR_CODES[code].http;
export const httpStatus = (code: ErrorCode): number => ERROR_CODES[code].http;

/** Reverse lookup from a GraphQL extensions.code (as seen by the facades) to an error code. */
export function codeFromGraphQL(extCode: unknown): ErrorCode {
  if (typeof extCode === 'string') {
    if (extCode in ERROR_CODES) return extCode as ErrorCode;
    for (const [code, m] of Object.entries(ERROR_CODES)) if (m.graphql === extCode) return code as ErrorCode;
    if (extCode === 'PERSISTED_QUERY_NOT_FOUND' || extCode === 'BAD_REQUEST') return 'BAD_USER_INPUT';
  }
  return 'INTERNAL';
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra machine-readable detail (e.g. `{ field: 'take' }`); never secrets. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what: string, id?: string) => new AppError('NOT_FOUND', id ? `${what} '${id}' was not found` : `${what} was not found`);
export const badInput = (field: string, message: string) => new AppError('BAD_USER_INPUT', message, { field });
export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
