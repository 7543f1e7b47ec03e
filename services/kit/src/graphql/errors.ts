import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, ERROR_CODES, isAppError } from '../errors.js';

/** Converts anything a resolver threw into a GraphQLError with a stable code; never leaks internals. */
export function toGraphQLError(err: unknown): GraphQLError {
  const original = err instanceof GraphQLError ? (err.originalError ?? err) : err;
  if (isAppError(original)) {
    const { graphql, http } = ERROR_CODES[original.code];
    return new GraphQLError(original.message, {
      ...(err instanceof GraphQLError ? { nodes: err.nodes, source: err.source, positions: err.positions, path: err.path } : {}),
      extensions: {
        code: graphql,
        ...original.details,
        ...(original.code === 'UNAUTHENTICATED' || original.code === 'FORBIDDEN' ? { http: { status: http } } : {}),
      },
    });
  }
  // Validation, parse and variable-coercion errors (the latter wrap the GraphQLError that explains them).
  if (err instanceof GraphQLError && (!err.originalError || err.originalError instanceof GraphQLError)) return err;
  return new GraphQLError('internal error', {
    ...(err instanceof GraphQLError ? { path: err.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

/**
 * Apollo `formatError`: strips stack traces and exception details from every response. AppErrors
 * keep their stable code; errors relayed from subgraphs keep theirs; anything else thrown
 * becomes a bare 'internal error'.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = error instanceof GraphQLError ? error.originalError : undefined;
  const where = { ...(formatted.locations ? { locations: formatted.locations } : {}), ...(formatted.path ? { path: formatted.path } : {}) };
  if (isAppError(original)) {
    const ge = toGraphQLError(original);
    return { message: ge.message, ...where, extensions: stripInternal(ge.extensions) };
  }
  // Apollo's own request refusals (a wrong persisted-query hash, an unsupported version) carry an
  // HTTP 4xx but no code, which Apollo then fills in as INTERNAL_SERVER_ERROR: they are the caller's fault.
  const status = error instanceof GraphQLError ? (error.extensions?.http as { status?: unknown } | undefined)?.status : undefined;
  if (formatted.extensions?.code === 'INTERNAL_SERVER_ERROR' && typeof status === 'number' && status >= 400 && status < 500) {
    return { message: formatted.message, ...where, extensions: { ...stripInternal(formatted.extensions), code: 'BAD_REQUEST' } };
  }
  const code = formatted.extensions?.code;
  const relayed = formatted.extensions?.serviceName !== undefined;
  if (original && !(original instanceof GraphQLError) && !relayed && (code === undefined || code === 'INTERNAL_SERVER_ERROR')) {
    return { message: 'internal error', ...where, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  return { ...formatted, ...(formatted.extensions ? { extensions: stripInternal(formatted.extensions) } : {}) };
}

function stripInternal(ext: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!ext) return {};
  // serviceName (added by the gateway to subgraph errors) names the internal topology.
  const { exception: _e, stacktrace: _s, http: _h, serviceName: _n, ...rest } = ext as Record<string, unknown>;
  return rest;
}

/** Expected mutation failures come back as payloads, not errors. */
export interface MutationResult {
  success: boolean;
  error: string | null;
  /** The stable code of the failure (payload types that declare `errorCode` expose it). */
  errorCode?: string | null;
  /** The input field at fault, when one is (payload types that declare `errorField` expose it). */
  errorField?: string | null;
}

/** Runs a mutation body; AppErrors become `{ success: false, error }`, anything else propagates. */
export async function mutationPayload<T extends object>(fn: () => Promise<T>): Promise<T & MutationResult> {
  try {
    const result = await fn();
    return { success: true, error: null, errorCode: null, errorField: null, ...result };
  } catch (e) {
    if (e instanceof AppError && e.code !== 'UNAUTHENTICATED' && e.code !== 'FORBIDDEN') {
      const field = typeof e.details.field === 'string' ? e.details.field : null;
      return { success: false, error: e.message, errorCode: e.code, errorField: field } as T & MutationResult;
    }
    throw e;
  }
}
