/**
 * The REST error body and the one place REST statuses come from. Every error the facade sends is
 *   { "error": { "code", "message", "field"?, "details"?: [{ field?, in?, message }], "request_id"? } }
 * Codes and statuses come from kit's one table; input faults answer one code (kit restCode).
 */
import type { Response } from 'express';
import { httpStatus, restCode, type ErrorCode } from '@pylon/kit';

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
      code: restCode(code),
      message,
      ...(extra.field ? { field: extra.field } : {}),
      ...(extra.details?.length ? { details: extra.details } : {}),
      ...(typeof requestId === 'string' ? { request_id: requestId } : {}),
    },
  };
  res.status(restStatus(code)).json(body);
}
