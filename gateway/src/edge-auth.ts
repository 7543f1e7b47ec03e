import type { NextFunction, Request, Response } from 'express';
import { ERROR_CODES, type Principal } from '@pylon/kit';

export interface Credentials {
  apiKey?: string | undefined;
  bearer?: string | undefined;
}

/** Resolves credentials presented at the edge to a principal (null: not valid). */
export interface EdgeAuthenticator {
  authenticate(credentials: Credentials): Promise<Principal | null>;
}

/** X-Service-ApiKey header, api_key query parameter, or Authorization: Bearer. */
export function credentialsFrom(req: Request): Credentials {
  const header = req.get('x-service-apikey');
  const query = typeof req.query.api_key === 'string' ? req.query.api_key : undefined;
  const auth = req.get('authorization');
  const bearer = auth && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '').trim() : undefined;
  return { apiKey: header ?? query, bearer };
}

export const unauthenticatedBody = (message: string) => ({ errors: [{ message, extensions: { code: ERROR_CODES.UNAUTHENTICATED.graphql } }] });

/** Authenticates every request; 401 with a GraphQL-shaped error body when it fails. */
export function graphqlAuth(auth: EdgeAuthenticator) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const creds = credentialsFrom(req);
    if (!creds.apiKey && !creds.bearer) {
      res.status(401).json(unauthenticatedBody('authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token'));
      return;
    }
    try {
      const principal = await auth.authenticate(creds);
      if (!principal) {
        res.status(401).json(unauthenticatedBody('invalid credentials'));
        return;
      }
      res.locals.principal = principal;
      next();
    } catch (e) {
      next(e);
    }
  };
}
