/**
 * Legacy authentication (spec, Authentication rule 5): only the `api_key` query parameter, on every
 * request. The X-Service-ApiKey header and bearer tokens of the other interfaces are deliberately
 * not read here, so a request carrying only those is refused. Whether the key is valid is decided
 * by the gateway when the persisted operation runs.
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError, type CallerCredentials } from '@pylon/kit';

export function requireApiKey() {
  return (req: Request, res: Response, next: NextFunction) => {
    const key = req.query.api_key;
    if (Array.isArray(key)) return next(new AppError('BAD_USER_INPUT', 'the api_key parameter must be given once', { field: 'api_key' }));
    if (typeof key !== 'string' || key.length === 0) return next(new AppError('UNAUTHENTICATED', 'the api_key parameter is required'));
    if (key.length > 256) return next(new AppError('UNAUTHENTICATED', 'invalid credentials'));
    res.locals.apiKey = key;
    next();
  };
}

/** The credentials a persisted operation runs with: the caller's own key, never the adapter's. */
export function callerOf(req: Request, res: Response): CallerCredentials {
  const requestId = res.getHeader('x-request-id');
  return {
    apiKey: res.locals.apiKey as string,
    ip: req.ip,
    ...(typeof requestId === 'string' ? { requestId } : {}),
    via: 'legacy',
  };
}
