/** How the OAuth 2.0 / OpenID Connect server is set up (OAUTH_* settings of the composition roots). */
export interface OAuthSettings {
  /** The public client's id (OAUTH_CLIENT_ID). */
  clientId: string;
  /** Exact redirect URIs the public client may use (OAUTH_REDIRECT_URIS). */
  redirectUris: string[];
  /** Access token lifetime in seconds (OAUTH_ACCESS_TOKEN_SECONDS). */
  accessTokenSeconds: number;
  /** The access tokens' audience (resource indicator); default: the issuer URL. */
  audience?: string | undefined;
}

/** The only scope a token needs for the API (spec: "required scope is webapi"). */
export const API_SCOPE = 'webapi';
export const DEFAULT_CLIENT_ID = 'pylon-public';
/** Loopback redirect for native apps and scripts (RFC 8252), e.g. the README's curl walk-through. */
export const DEFAULT_REDIRECT_URIS = ['http://127.0.0.1:8765/callback'];

/** The operator console's redirect (served at /console by the gateway): always allowed on the issuer's origin. */
export const CONSOLE_CALLBACK_PATH = '/console/callback';

/** Paths the OAuth server answers ({auth_url} is the issuer). */
export const OAUTH_ROUTES = {
  authorization: '/connect/authorize',
  token: '/connect/token',
  jwks: '/connect/jwks',
  userinfo: '/connect/userinfo',
  end_session: '/connect/endsession',
  revocation: '/connect/revocation',
} as const;

export const INTERACTION_PREFIX = '/connect/interaction';

/** True for paths the OAuth server owns. */
export const isOAuthPath = (path: string) =>
  path.startsWith('/connect/') || path === '/.well-known/openid-configuration' || path === '/.well-known/oauth-authorization-server';

/** The user a token subject names: `<accountId>:<userId>` (account ids never contain ':'). */
export const subjectOf = (accountId: string, userId: string) => `${accountId}:${userId}`;
export function parseSubject(sub: string): { accountId: string; userId: string } | null {
  const i = sub.indexOf(':');
  if (i <= 0 || i === sub.length - 1) return null;
  return { accountId: sub.slice(0, i), userId: sub.slice(i + 1) };
}
