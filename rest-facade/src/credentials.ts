import type { Request } from 'express';

/** Credentials as presented on a REST request; validity is the gateway's call, not the facade's. */
export interface RestCredentials {
  /** X-Service-ApiKey header. */
  headerKey?: string | undefined;
  /** api_key query parameter. */
  queryKey?: string | undefined;
  /** Authorization: Bearer <token>. */
  bearer?: string | undefined;
}

const nonEmpty = (v: string | null | undefined) => (v && v.trim() ? v.trim() : undefined);

export function credentialsOf(req: Request, query: URLSearchParams): RestCredentials {
  const auth = req.get('authorization');
  const bearer = auth && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '') : undefined;
  return { headerKey: nonEmpty(req.get('x-service-apikey')), queryKey: nonEmpty(query.get('api_key')), bearer: nonEmpty(bearer) };
}

/** The header key wins over the query key (the spec calls the header the safer of the two). */
export const apiKeyOf = (c: RestCredentials) => c.headerKey ?? c.queryKey;

export const hasCredentials = (c: RestCredentials) => Boolean(apiKeyOf(c) ?? c.bearer);
