/** Writes a result or an error in the negotiated representation (json, JSONP, xml, rss). */
import type { Response } from 'express';
import { legacyStatus, type AppError } from '@pylon/kit';
import { negotiated } from '../http/negotiation.js';
import { JSON_TYPE, renderJson } from './json.renderer.js';
import { JSONP_TYPE, renderJsonp } from './jsonp.renderer.js';
import { renderRss, RSS_TYPE, type RssFeed } from './rss.renderer.js';
import { renderXml, XML_TYPE } from './xml.renderer.js';

/** How one resource is written out. */
export interface View<T> {
  /** XML root element (`account`, `devices`). */
  root: string;
  /** For lists: the element of each item (`device`). */
  item?: string;
  /** Only resources with an RSS view answer format=rss. */
  rss?: (data: T) => RssFeed;
}

function write(res: Response, status: number, type: string, body: string): void {
  // Everything here is generated, never a file: no sniffing, no caching of per-key data.
  res.status(status).set({ 'content-type': type, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' }).send(body);
}

export function sendData<T>(res: Response, data: T, view: View<T>, status = 200): void {
  const { format, callback } = negotiated(res);
  if (format === 'rss') {
    // Routes without an RSS view refuse format=rss before they run; this is the last guard.
    if (!view.rss) throw new Error(`no RSS view for ${view.root}`);
    write(res, status, RSS_TYPE, renderRss(view.rss(data)));
  } else if (format === 'xml') write(res, status, XML_TYPE, renderXml(view.root, data, view.item));
  else if (callback) write(res, status, JSONP_TYPE, renderJsonp(callback, data));
  else write(res, status, JSON_TYPE, renderJson(data));
}

/** `{ "error": { code, message, field?, request_id? } }` or `<error><code/><message/><field/>...</error>`; rss asks for XML, so it gets XML. */
export function sendError(res: Response, error: AppError): void {
  const { format, callback } = negotiated(res);
  const status = legacyStatus(error.code);
  if (error.code === 'RATE_LIMITED') res.setHeader('Retry-After', String(Number(error.details.retryAfter) || 1));
  // The request id (also the X-Request-Id header) lets a caller quote the failure, as REST errors do.
  const requestId = res.getHeader('x-request-id');
  // `field` names the parameter or body property at fault (as REST errors do), when there is one.
  const field = typeof error.details.field === 'string' ? error.details.field : undefined;
  const body = {
    code: error.code,
    message: error.message,
    ...(field ? { field } : {}),
    ...(typeof requestId === 'string' ? { request_id: requestId } : {}),
  };
  if (format === 'xml' || format === 'rss') write(res, status, XML_TYPE, renderXml('error', body));
  else if (callback) write(res, status, JSONP_TYPE, renderJsonp(callback, { error: body }));
  else write(res, status, JSON_TYPE, renderJson({ error: body }));
}
