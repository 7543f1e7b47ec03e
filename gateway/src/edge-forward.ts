/**
 * Distributed mode: routes a subgraph process serves over plain HTTP (behind the internal token)
 * reached through the gateway. The gateway authenticates the caller's credentials exactly as for
 * /graphql, then forwards the request (body streamed, not buffered) with the caller's principal
 * signed as the internal token, and streams the answer back. Used for the datatables process's
 * import jobs: POST /datatables/{id}/rows/import (202 + Location: /jobs/{id} above the threshold)
 * and GET/DELETE /jobs/{id}; GET /jobs/{id}/result (a signed link) is forwarded without
 * authenticating. The caller's own credentials are not forwarded.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import express, { type Request, type Response, type Router } from 'express';
import { INTERNAL_TOKEN_HEADER, isAppError, httpStatus, type InternalTokens } from '@pylon/kit';
import { credentialsFrom, type EdgeAuthenticator } from './edge-auth.js';

/** Request headers passed on (everything else, credentials included, stays at the edge). */
const REQUEST_HEADERS = ['content-type', 'content-length', 'accept', 'if-none-match', 'x-request-id', 'prefer', 'last-event-id'];
/** Answer headers passed back. */
const RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'location',
  'etag',
  'cache-control',
  'content-disposition',
  'retry-after',
  'preference-applied',
  'x-accel-buffering',
];

export interface EdgeRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  /** Forwarded without authenticating (the route checks its own credential: a job result's signed link); no principal is signed. */
  public?: boolean;
}

export function forwardToProcess(o: {
  base: string;
  routes: readonly EdgeRoute[];
  auth: EdgeAuthenticator;
  tokens: InternalTokens;
  timeoutMs: number;
  /** Request headers passed on besides REQUEST_HEADERS (e.g. content-encoding of a player's gzipped batch). */
  requestHeaders?: readonly string[];
  /** Send the caller's address (as this process resolved it, TRUST_PROXY) as X-Forwarded-For: the process limits per address. */
  forwardClientAddress?: boolean;
}): Router {
  const router = express.Router();
  const fail = (res: Response, status: number, code: string, message: string) => {
    if (res.headersSent) return void res.destroy();
    res.status(status).json({ error: { code, message } });
  };
  const forward = async (req: Request, res: Response, open = false) => {
    const headers: Record<string, string> = {};
    if (!open) {
      let principal;
      try {
        principal = await o.auth.authenticate(credentialsFrom(req));
      } catch (e) {
        if (isAppError(e)) {
          if (typeof e.details.retryAfter === 'number') res.setHeader('Retry-After', String(e.details.retryAfter));
          return fail(res, httpStatus(e.code), e.code, e.message);
        }
        return fail(res, 503, 'UNAVAILABLE', 'authentication is unavailable');
      }
      if (!principal) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="pylon"');
        return fail(res, 401, 'UNAUTHENTICATED', 'authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token');
      }
      headers[INTERNAL_TOKEN_HEADER] = await o.tokens.sign(principal);
    }
    const target = new URL(req.originalUrl, o.base);
    target.searchParams.delete('api_key');
    for (const h of [...REQUEST_HEADERS, ...(o.requestHeaders ?? [])]) {
      const v = req.get(h);
      if (v) headers[h] = v;
    }
    if (o.forwardClientAddress && req.ip) headers['x-forwarded-for'] = req.ip;
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(target, { method: req.method, headers, timeout: o.timeoutMs }, (answer) => {
      res.status(answer.statusCode ?? 502);
      for (const h of RESPONSE_HEADERS) {
        const v = answer.headers[h];
        if (v !== undefined) res.setHeader(h, v);
      }
      answer.pipe(res);
      // A client that goes away mid-answer (an event stream is never complete) ends the upstream too.
      res.on('close', () => {
        if (!answer.complete) answer.destroy();
      });
    });
    upstream.on('timeout', () => upstream.destroy(new Error('timeout')));
    upstream.on('error', () => fail(res, 502, 'UNAVAILABLE', 'the service behind this route did not answer'));
    // The caller went away (a long-poll aborted): so does the upstream request, which ends the wait there.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
  for (const r of o.routes) router[r.method](r.path, (req, res) => void forward(req, res, r.public === true));
  return router;
}

/**
 * What the gateway forwards to the datatables process: large imports (jobs), the job routes, and a
 * finished job's file through its signed link (public: the signature is checked there; the job
 * state and the blob store are shared, so any job's file, a report's too, is served from there).
 */
export const DATATABLES_EDGE_ROUTES: readonly EdgeRoute[] = [
  { method: 'post', path: '/datatables/:tableId/rows/import' },
  { method: 'get', path: '/datatables/:tableId/rows/export' },
  { method: 'get', path: '/jobs/:id/result', public: true },
  { method: 'get', path: '/jobs/:id' },
  { method: 'delete', path: '/jobs/:id' },
];

/** What the gateway forwards to the identity process: the live event stream (read from the push-event log there). */
export const IDENTITY_EDGE_ROUTES: readonly EdgeRoute[] = [{ method: 'get', path: '/events/stream' }];
