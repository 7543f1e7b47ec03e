/**
 * The REST error body and the one place REST statuses come from. Every error the facade sends is
 *   { "error": { "code", "message", "field"?, "details"?: [{ field?, in?, message }], "request_id"? } }
 * Codes and statuses come from kit's one table.
 */
import type { Response } from 'express';
import type { GraphQLFormattedError } from 'graphql';
import { codeFromGraphQL, httpStatus, type ErrorCode } from '@pylon/kit';
import { snakeCase } from './case.js';

export type RestErrorCode = ErrorCode;

export interface ErrorDetail {
  field?: string;
  in?: 'query' | 'path' | 'header' | 'body';
  message: string;
}

export interface RestErrorBody {
  error: { code: RestErrorCode; message: string; field?: string; details?: ErrorDetail[]; request_id?: string };
}

export const restStatus = (code: RestErrorCode): number => httpStatus(code);

export function sendError(res: Response, code: RestErrorCode, message: string, extra: { field?: string | undefined; details?: ErrorDetail[] } = {}): void {
  const requestId = res.getHeader('x-request-id');
  const body: RestErrorBody = {
    error: {
      code,
      message,
      ...(extra.field ? { field: extra.field } : {}),
      ...(extra.details?.length ? { details: extra.details } : {}),
      ...(typeof requestId === 'string' ? { request_id: requestId } : {}),
    },
  };
  res.status(restStatus(code)).json(body);
}

/** What went wrong in a gateway answer, in REST terms. */
export interface Failure {
  code: ErrorCode;
  message: string;
  field?: string;
}

/**
 * GraphQL codes that can only mean a defect in a persisted document or in the facade (the caller
 * never writes GraphQL here), so they are 500s rather than the caller's 400.
 */
const DEFECT_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'PERSISTED_QUERY_NOT_FOUND', 'OPERATION_RESOLUTION_FAILURE']);

/**
 * Picks the error to answer with: the first one with a known code (an INTERNAL one only when
 * nothing better exists). `fieldNames` maps GraphQL argument names back to REST parameter names.
 */
export function failureFromGraphQL(errors: readonly GraphQLFormattedError[], status: number, fieldNames: Readonly<Record<string, string>> = {}): Failure {
  const classified = errors.map((e) => {
    const ext = e.extensions ?? {};
    const defect = DEFECT_CODES.has(String(ext.code));
    const code: ErrorCode = defect ? 'INTERNAL' : ext.code === undefined ? fromStatus(status) : codeFromGraphQL(ext.code);
    return { e, ext, code, defect };
  });
  const chosen = classified.find((c) => c.code !== 'INTERNAL') ?? classified[0];
  if (chosen?.defect) return { code: 'INTERNAL', message: 'internal error' };
  if (!chosen || chosen.code === 'INTERNAL') {
    // No usable code: the gateway's HTTP status is the next best witness (a 403 stays a 403).
    const code = fromStatus(status);
    return { code, message: GENERIC_MESSAGES[code] ?? 'internal error' };
  }
  const field = typeof chosen.ext.field === 'string' ? restFieldName(chosen.ext.field, fieldNames) : undefined;
  return { code: chosen.code, message: chosen.e.message, ...(field ? { field } : {}) };
}

const GENERIC_MESSAGES: Partial<Record<ErrorCode, string>> = {
  UNAUTHENTICATED: 'authentication required',
  FORBIDDEN: 'the caller may not perform this operation',
  NOT_FOUND: 'not found',
  BAD_USER_INPUT: 'the request is invalid',
  RATE_LIMITED: 'too many requests',
  UNAVAILABLE: 'a backend is unavailable; retry later',
};

function fromStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503) return 'UNAVAILABLE';
  if (status >= 400 && status < 500) return 'BAD_USER_INPUT';
  return 'INTERNAL';
}

/** `limit` -> `take` (per-operation names first), `groupId` -> `group_id`, `where.isOnline` -> `is_online` when mapped. */
export function restFieldName(graphqlField: string, fieldNames: Readonly<Record<string, string>>): string {
  if (Object.hasOwn(fieldNames, graphqlField)) return fieldNames[graphqlField]!;
  return graphqlField.split('.').map(snakeCase).join('.');
}
