/**
 * The one mapper from a gateway answer to the facades' errors, shared by the REST facade and the
 * legacy adapter: GraphQL errors (`failureFromGraphQL`) and mutation payloads with
 * `success: false` (`payloadAt`) both become an AppError with a stable code and, when one is at
 * fault, the REST/legacy name of the field.
 */
import type { GraphQLFormattedError } from 'graphql';
import { AppError, codeFromGraphQL, type ErrorCode } from '../errors.js';
import { snakeCase } from './case.js';

export type FieldNames = Readonly<Record<string, string>>;

/** What went wrong in a gateway answer, in facade terms. */
export interface Failure {
  code: ErrorCode;
  message: string;
  field?: string;
  /** Seconds, for RATE_LIMITED. */
  retryAfter?: number;
  /** True when the failure is our defect (a persisted document the schema refuses): log it. */
  defect?: boolean;
}

/**
 * GraphQL codes that can only mean a defect in a persisted document or in a facade (callers never
 * write GraphQL there), so they are 500s rather than the caller's 400.
 */
const DEFECT_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'PERSISTED_QUERY_NOT_FOUND', 'OPERATION_RESOLUTION_FAILURE']);

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

/**
 * GraphQL argument path -> the facade's field name: per-operation names first (`limit` -> `take`),
 * then list arguments that are the whole body (`operations[1].path` -> `body[1].path`), then
 * snake_case per segment (`input.groupId` -> `input.group_id`).
 */
export function facadeFieldName(graphqlField: string, fieldNames: FieldNames = {}): string {
  if (Object.hasOwn(fieldNames, graphqlField)) return fieldNames[graphqlField]!;
  const field = graphqlField.replace(/^(?:operations|commands)(?=\[)/, 'body');
  return field.split('.').map(snakeCase).join('.');
}

/**
 * Picks the error to answer with: the first one with a known code (an INTERNAL one only when
 * nothing better exists); the gateway's HTTP status stands in when no error has a code.
 */
export function failureFromGraphQL(errors: readonly GraphQLFormattedError[], status: number, fieldNames: FieldNames = {}): Failure {
  const classified = errors.map((e) => {
    const ext = e.extensions ?? {};
    const defect = DEFECT_CODES.has(String(ext.code));
    const code: ErrorCode = defect ? 'INTERNAL' : ext.code === undefined ? fromStatus(status) : codeFromGraphQL(ext.code);
    return { e, ext, code, defect };
  });
  const chosen = classified.find((c) => c.code !== 'INTERNAL') ?? classified[0];
  if (chosen?.defect) return { code: 'INTERNAL', message: 'internal error', defect: true };
  if (!chosen || chosen.code === 'INTERNAL') {
    // No usable code: the gateway's HTTP status is the next best witness (a 403 stays a 403).
    const code = fromStatus(status);
    return { code, message: GENERIC_MESSAGES[code] ?? 'internal error' };
  }
  const field = typeof chosen.ext.field === 'string' ? facadeFieldName(chosen.ext.field, fieldNames) : undefined;
  return {
    code: chosen.code,
    message: field && typeof chosen.ext.field === 'string' ? inFacadeTerms(chosen.e.message, chosen.ext.field, field) : chosen.e.message,
    ...(field ? { field } : {}),
    ...(chosen.code === 'RATE_LIMITED' ? { retryAfter: Number(chosen.ext.retryAfter) || 1 } : {}),
  };
}

/** A Failure as the AppError both facades throw and render. */
export const failureError = (f: Failure) =>
  new AppError(f.code, f.message, { ...(f.field ? { field: f.field } : {}), ...(f.retryAfter ? { retryAfter: f.retryAfter } : {}) });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The mutation payload at `root` when it succeeded; otherwise the error it stands for: its stable
 * code (400 when none, or when it names no caller-facing code), naming the field at fault.
 */
/** The message with the GraphQL field's name (`input.startTime`, `startTime`) in the facade's spelling (`start_time`). */
export function inFacadeTerms(message: string, graphqlField: string, facadeField: string): string {
  const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const last = graphqlField.split('.').pop()!;
  const facadeLast = facadeField.split('.').pop()!;
  let out = message.replace(new RegExp(`(?<![\\w.])${escape(graphqlField)}(?![\\w])`, 'g'), facadeField);
  if (last !== facadeLast && last !== graphqlField) out = out.replace(new RegExp(`(?<![\\w.])${escape(last)}(?![\\w])`, 'g'), facadeField);
  return out;
}

export function payloadAt(data: Record<string, unknown>, root: string, fieldNames: FieldNames = {}): Record<string, unknown> {
  const payload = data[root];
  if (!isRecord(payload)) throw new AppError('INTERNAL', `the gateway answer has no object at '${root}'`);
  if (payload.success === true) return payload;
  const code = typeof payload.errorCode === 'string' ? codeFromGraphQL(payload.errorCode) : 'BAD_USER_INPUT';
  const field = typeof payload.errorField === 'string' ? facadeFieldName(payload.errorField, fieldNames) : undefined;
  const message = typeof payload.error === 'string' ? payload.error : 'the request is invalid';
  throw new AppError(
    code === 'INTERNAL' ? 'BAD_USER_INPUT' : code,
    field && typeof payload.errorField === 'string' ? inFacadeTerms(message, payload.errorField, field) : message,
    field ? { field } : {},
  );
}
