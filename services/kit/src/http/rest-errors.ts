/**
 * The REST error envelope of every plain-HTTP router beside the REST facade (media uploads and
 * files, data tables, reports, the player API, jobs), and the wrapper that authenticates their
 * routes. The facade's own errors (rest-facade/src/errors.ts) have the same shape:
 *
 *   { "error": { "code", "message", "field"?, "request_id"? } }   with kit's status for the code
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { httpStatus, isAppError, restCode, type AppError, type ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Principal } from '../auth/principal.js';

/** Answers the envelope; once headers are out (a stream failed midway) the connection is cut instead. */
export function sendRestError(
  res: Response,
  code: ErrorCode,
  message: string,
  opts: { field?: string | undefined; headers?: Record<string, string> } = {},
): void {
  if (res.headersSent) return void res.destroy();
  for (const [name, value] of Object.entries(opts.headers ?? {})) res.setHeader(name, value);
  const requestId = res.getHeader('x-request-id');
  res.status(httpStatus(code)).json({
    error: {
      code: restCode(code),
      message,
      ...(opts.field ? { field: opts.field } : {}),
      ...(typeof requestId === 'string' ? { request_id: requestId } : {}),
    },
  });
}

/** An AppError as the envelope, naming its field when it has one. */
export const sendAppError = (res: Response, e: AppError): void =>
  sendRestError(res, e.code, e.message, { field: typeof e.details.field === 'string' ? e.details.field : undefined });

export const AUTHENTICATION_REQUIRED = 'authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token';

export type AuthedHandler = (req: Request, res: Response, principal: Principal) => Promise<void>;

export interface AuthedRoutes {
  /** The caller, or null when the request carries no valid credentials (401). */
  authenticate(req: Request): Promise<Principal | null>;
  logger?: Logger | undefined;
  /** What a request does, for the log line of an INTERNAL ('media upload') or UNAVAILABLE failure. */
  what: string;
  /**
   * A request refused before its body was read: bodies larger than this many bytes (by
   * Content-Length; unknown counts as large) are not read, the connection is closed instead;
   * smaller ones are drained so the connection stays usable. Absent: left to express.
   */
  cutUnreadBodyAbove?: number;
}

/**
 * `authed(handler)`: an express handler that authenticates (401 without a principal), runs the
 * handler and answers its AppErrors as the envelope; anything else goes to `next`.
 */
export function authedRoutes(o: AuthedRoutes): (h: AuthedHandler) => RequestHandler {
  return (h) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      const principal = await o.authenticate(req);
      if (!principal) return sendRestError(res, 'UNAUTHENTICATED', AUTHENTICATION_REQUIRED);
      await h(req, res, principal);
    } catch (e) {
      if (o.cutUnreadBodyAbove !== undefined && !req.complete && !res.headersSent && !(Number(req.get('content-length')) <= o.cutUnreadBodyAbove)) {
        res.setHeader('Connection', 'close');
        req.unpipe();
        req.resume();
      }
      if (!isAppError(e)) return next(e);
      if (e.code === 'INTERNAL') o.logger?.error({ err: e }, `${o.what} failed`);
      else if (e.code === 'UNAVAILABLE') o.logger?.warn({ err: e }, `${o.what} could not be answered now`);
      sendAppError(res, e);
    }
  };
}
