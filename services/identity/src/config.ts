/**
 * The identity subgraph's settings, declared once: its own process (main.ts) and the all-in-one
 * (launcher/src/all-in-one.config.ts) spread these fragments into their zod schema. `authEnv` also configures
 * every edge that authenticates callers (the distributed gateway caches principals and limits
 * failed attempts with the same settings).
 */
import { z } from 'zod';
import { auditSinkEnv } from '@pylon/composition/audit-sink';
import { envInt, envList } from '@pylon/kit';
import { DEFAULT_CLIENT_ID, DEFAULT_REDIRECT_URIS, type OAuthSettings } from './domain/oauth-settings.js';

/** Resolving API keys and bearer tokens to principals, and refusing addresses that keep failing. */
export const authEnv = {
  /** How long a resolved key or token is cached (revocations bypass it). */
  PRINCIPAL_CACHE_SECONDS: envInt(30, 1, 3600),
  /** Failed authentications per client IP per window; that IP is then refused (429) until the window ends. */
  AUTH_FAILURE_POINTS: envInt(30, 1, 1_000_000),
  AUTH_FAILURE_WINDOW_SECONDS: envInt(300, 1, 86400),
};

/** The OAuth 2.0 / OpenID Connect server and key revocation polling. */
export const oauthEnv = {
  /** The public base URL clients reach the OAuth server at ({auth_url}); default: the server's own address. */
  OAUTH_ISSUER: z.string().url().optional(),
  OAUTH_CLIENT_ID: z
    .string()
    .regex(/^[\w.-]{3,100}$/)
    .default(DEFAULT_CLIENT_ID),
  /** Comma-separated exact redirect URIs of the public client. */
  OAUTH_REDIRECT_URIS: envList().pipe(z.array(z.string().url()).transform((l) => (l.length ? l : DEFAULT_REDIRECT_URIS))),
  OAUTH_ACCESS_TOKEN_SECONDS: envInt(900, 60, 86400),
  /** Audience (resource indicator) of access tokens; default: the issuer. */
  OAUTH_AUDIENCE: z.string().url().optional(),
  /** How often every process looks for API keys revoked elsewhere (admin CLI, other replicas). */
  REVOCATION_POLL_MS: envInt(1000, 100, 60000),
};

export const identityEnv = { ...authEnv, ...oauthEnv };

/** The identity process (main.ts): its settings plus where the audit trail goes. */
export const identityProcessEnv = { ...identityEnv, ...auditSinkEnv };

type Parsed<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;
export type IdentityEnv = Parsed<typeof identityEnv>;

/** The OAuth server's settings from the parsed env. */
export function oauthSettings(env: Parsed<typeof oauthEnv>): OAuthSettings {
  return {
    clientId: env.OAUTH_CLIENT_ID,
    redirectUris: env.OAUTH_REDIRECT_URIS,
    accessTokenSeconds: env.OAUTH_ACCESS_TOKEN_SECONDS,
    audience: env.OAUTH_AUDIENCE,
  };
}
