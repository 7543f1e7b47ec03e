import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { auditNote, ERROR_CODES, isAppError, PRINCIPAL_HEADERS, type Principal } from '@pylon/kit';

export interface Credentials {
  apiKey?: string | undefined;
  bearer?: string | undefined;
  /** The caller's address (failed-authentication limits). */
  ip?: string | undefined;
}

/**
 * Resolves credentials presented at the edge to a principal (null: not valid). May throw an
 * AppError RATE_LIMITED (details.retryAfter in seconds) when the caller is over a limit.
 */
export interface EdgeAuthenticator {
  authenticate(credentials: Credentials): Promise<Principal | null>;
}

const sha = (v: string) => createHash('sha256').update(v).digest('base64url');

/** The counter a request is charged to (rate-limits.ts, plan-limit.plugin.ts): the key itself, or the user a token acts for. */
export const requestKey = (creds: Credentials, p: Principal) => (creds.apiKey ? `key:${sha(creds.apiKey)}` : `user:${p.accountId}:${p.userId}`);

/** X-Service-ApiKey header, api_key query parameter, or Authorization: Bearer. */
export function credentialsFrom(req: Request): Credentials {
  const header = req.get('x-service-apikey');
  const query = typeof req.query.api_key === 'string' ? req.query.api_key : undefined;
  const auth = req.get('authorization');
  const bearer = auth && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '').trim() : undefined;
  return { apiKey: header ?? query, bearer, ip: req.ip };
}

/** Pylon's API keys (identity's key format): recognisable, so one sent as a bearer token gets the fix. */
const API_KEY_SHAPE = /^pyl_[\w-]{16,}$/;

/** Why credentials were refused, with the fix where the mistake is recognisable (never echoing them). */
export function invalidCredentialsMessage(creds: Credentials): string {
  if (creds.bearer && !creds.apiKey && API_KEY_SHAPE.test(creds.bearer)) {
    return 'invalid credentials: that bearer token is an API key; send API keys as the X-Service-ApiKey header (or the api_key parameter), Authorization: Bearer takes OAuth access tokens';
  }
  if (creds.bearer && !creds.apiKey) return 'invalid credentials: the bearer token is not valid (expired, revoked, or not issued by this server)';
  return 'invalid credentials: unknown, revoked or expired API key';
}

export const unauthenticatedBody = (message: string) => ({ errors: [{ message, extensions: { code: ERROR_CODES.UNAUTHENTICATED.graphql } }] });

/** The GraphQL-shaped 429 body; `retryAfter` (seconds) is also the Retry-After header. */
export const rateLimitedBody = (message: string, retryAfter: number) => ({
  errors: [{ message, extensions: { code: ERROR_CODES.RATE_LIMITED.graphql, retryAfter } }],
});

/**
 * Authenticates every request; 401 with a GraphQL-shaped error body when it fails, 429 with
 * Retry-After when the key, token or address is over its limit. The authenticated caller is
 * named in response headers (kit PRINCIPAL_HEADERS) for the facades' audit trail in distributed mode.
 */
export function graphqlAuth(auth: EdgeAuthenticator) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const creds = credentialsFrom(req);
    if (!creds.apiKey && !creds.bearer) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="pylon"');
      res.status(401).json(unauthenticatedBody('authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token'));
      return;
    }
    try {
      const principal = await auth.authenticate(creds);
      if (!principal) {
        res.setHeader('WWW-Authenticate', creds.bearer && !creds.apiKey ? 'Bearer realm="pylon", error="invalid_token"' : 'Bearer realm="pylon"');
        res.status(401).json(unauthenticatedBody(invalidCredentialsMessage(creds)));
        return;
      }
      res.locals.principal = principal;
      res.locals.rateKey = requestKey(creds, principal);
      auditNote(res).principal = { accountId: principal.accountId, userId: principal.userId, userName: principal.userName };
      res.setHeader(PRINCIPAL_HEADERS.account, principal.accountId);
      res.setHeader(PRINCIPAL_HEADERS.user, principal.userId);
      res.setHeader(PRINCIPAL_HEADERS.userName, encodeURIComponent(principal.userName));
      next();
    } catch (e) {
      if (isAppError(e) && e.code === 'RATE_LIMITED') {
        const retryAfter = Number(e.details.retryAfter) || 1;
        res.setHeader('Retry-After', String(retryAfter));
        res.status(429).json(rateLimitedBody(e.message, retryAfter));
        return;
      }
      next(e);
    }
  };
}
