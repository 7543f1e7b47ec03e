/** Unknown paths and every error, rendered in the negotiated format with the kit's statuses. */
import type { NextFunction, Request, Response } from 'express';
import { AppError, isAppError, type Logger } from '@pylon/kit';
import { sendError } from '../render/respond.js';

export function notFound() {
  return (req: Request, _res: Response, next: NextFunction) => {
    next(new AppError('NOT_FOUND', `the legacy interface has no ${req.method} ${req.path.slice(0, 200)}`));
  };
}

const statusOf = (err: unknown): number | undefined => {
  if (typeof err !== 'object' || err === null) return undefined;
  const s = (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
  return typeof s === 'number' ? s : undefined;
};

/** Maps body-parser and other HTTP errors onto stable codes; anything unexpected is a logged 500. */
export function toLegacyError(err: unknown, opts: { maxBodyBytes: number; logger: Logger }): AppError {
  if (isAppError(err)) return err;
  const status = statusOf(err);
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', `request bodies are limited to ${opts.maxBodyBytes} bytes`);
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported request body encoding');
  if (status !== undefined && status >= 400 && status < 500) return new AppError('BAD_USER_INPUT', 'malformed request');
  opts.logger.error({ err }, 'unhandled error in the legacy adapter');
  return new AppError('INTERNAL', 'internal error');
}

export function errorHandler(opts: { maxBodyBytes: number; logger: Logger }) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    sendError(res, toLegacyError(err, opts));
  };
}
