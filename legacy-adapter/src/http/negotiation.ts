/**
 * Output negotiation for the legacy interface: `format` (json | xml | rss) and `callback` (JSONP).
 * Runs first, so every later error can be rendered in the format the client asked for.
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@pylon/kit';

export type LegacyFormat = 'json' | 'xml' | 'rss';

export interface Negotiated {
  format: LegacyFormat;
  /** A validated JSONP function name; only ever set for GET requests with format=json. */
  callback?: string;
}

const FORMATS: readonly LegacyFormat[] = ['json', 'xml', 'rss'];

/** SECURITY.md: JSONP names may hold only `[\w$.\[\]]` (so `a.b`, `cb[0]`, `$x`), at most 128 of them. */
export const CALLBACK_NAME = /^[\w$.[\]]{1,128}$/;
export const isValidCallbackName = (name: string): boolean => CALLBACK_NAME.test(name);

/** What errors are rendered in before (or when) negotiation succeeds: plain JSON. */
export const FALLBACK: Negotiated = { format: 'json' };

/**
 * Reads `format` and `callback` from a query. Throws UNSUPPORTED_FORMAT / BAD_USER_INPUT (400);
 * whether a route offers rss is checked by the route itself.
 */
export function negotiate(query: Request['query'], method: string): Negotiated {
  const rawFormat = query.format;
  let format: LegacyFormat = 'json';
  if (rawFormat !== undefined) {
    const value = typeof rawFormat === 'string' ? rawFormat.toLowerCase() : undefined;
    if (!value || !FORMATS.includes(value as LegacyFormat)) {
      throw new AppError('UNSUPPORTED_FORMAT', 'format must be one of json, xml, rss', { field: 'format' });
    }
    format = value as LegacyFormat;
  }
  const callback = query.callback;
  if (callback === undefined) return { format };
  if (typeof callback !== 'string' || !isValidCallbackName(callback)) {
    throw new AppError('BAD_USER_INPUT', 'callback must be 1 to 128 characters of letters, digits, _, $, ., [ and ]', { field: 'callback' });
  }
  // JSONP wraps JSON and is read through a <script> tag, which can only GET.
  if (method !== 'GET' && method !== 'HEAD') throw new AppError('BAD_USER_INPUT', 'callback is only accepted on GET requests', { field: 'callback' });
  // Wrapping XML in a function call makes neither valid XML nor useful script: refused, not ignored.
  if (format !== 'json') throw new AppError('BAD_USER_INPUT', 'callback can only be combined with format=json', { field: 'callback' });
  return { format, callback };
}

/** The negotiated output of this request (FALLBACK until the middleware below ran). */
export const negotiated = (res: Response): Negotiated => (res.locals.legacy as Negotiated | undefined) ?? FALLBACK;

/**
 * Middleware: stores the negotiation in res.locals. When the request itself is invalid, errors
 * are still rendered as close to what was asked as possible: a valid format is kept when only
 * the callback is wrong; an invalid format answers in JSON.
 */
export function negotiation() {
  return (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.legacy = negotiate(req.query, req.method);
      next();
    } catch (e) {
      try {
        res.locals.legacy = negotiate({ format: req.query.format }, 'GET');
      } catch {
        res.locals.legacy = FALLBACK;
      }
      next(e);
    }
  };
}
