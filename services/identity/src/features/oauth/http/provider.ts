/**
 * The oidc-provider instance: one public first-party client (PKCE with S256 required, no
 * secret), authorization code and refresh token grants, and JWT access tokens for the API
 * (resource indicator = the audience, scope `webapi`, RS256 with the persisted key). Every
 * piece of OAuth state goes through the documents adapter; the in-memory adapter is never used.
 */
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { IdentityRepository } from '../../../shared/identity.repository.js';
import type { OAuthKeys } from '../oauth-keys.js';
import type { OidcAdapterFactory } from '../../../adapters/oidc.adapter.js';
import { API_SCOPE, CONSOLE_CALLBACK_PATH, INTERACTION_PREFIX, OAUTH_ROUTES, parseSubject, type OAuthSettings } from '../../../domain/oauth-settings.js';
import { renderErrorPage } from './pages.js';

export interface ProviderDeps {
  issuer: string;
  settings: OAuthSettings;
  keys: OAuthKeys;
  adapter: OidcAdapterFactory;
  repo: IdentityRepository;
}

export const audienceOf = (issuer: string, settings: OAuthSettings) => settings.audience ?? issuer;

/**
 * oidc-provider 9 (the only maintained line) warns on import when Node is older than 22 LTS; it
 * runs on Node 20.19+ (the whole OAuth suite passes there). That one console warning is held back,
 * so it does not interleave with `npm start`'s banner and JSON logs; README states the support.
 */
async function loadOidcProvider(): Promise<typeof import('oidc-provider')> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime')) return;
    warn(...args);
  };
  try {
    return await import('oidc-provider');
  } finally {
    console.warn = warn;
  }
}

export async function createProvider(d: ProviderDeps): Promise<Provider> {
  const { default: ProviderClass, errors } = await loadOidcProvider();
  const audience = audienceOf(d.issuer, d.settings);
  // The console signs in from the issuer's own origin, so a base URL change needs no extra setting.
  const redirectUris = [...new Set([...d.settings.redirectUris, `${d.issuer}${CONSOLE_CALLBACK_PATH}`])];
  const origins = new Set(redirectUris.map((u) => new URL(u).origin));
  const configuration: Configuration = {
    adapter: d.adapter as unknown as Configuration['adapter'],
    clients: [
      {
        client_id: d.settings.clientId,
        client_name: 'Pylon',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: redirectUris,
      },
    ],
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'given_name', 'family_name'], email: ['email'] },
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `${INTERACTION_PREFIX}/${interaction.uid}` },
    cookies: { keys: d.keys.cookieKeys },
    jwks: d.keys.privateJwks as Configuration['jwks'],
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== audience) throw new errors.InvalidTarget(`unknown resource; this server issues tokens for ${audience}`);
          return { scope: API_SCOPE, audience, accessTokenTTL: d.settings.accessTokenSeconds, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    clientBasedCORS: (_ctx, origin) => origins.has(origin),
    ttl: {
      AccessToken: d.settings.accessTokenSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Grant: 14 * 86_400,
      Session: 14 * 86_400,
      RefreshToken: 14 * 86_400,
    },
    async findAccount(_ctx, sub) {
      const ref = parseSubject(sub);
      const user = ref ? await d.repo.findUser(ref.accountId, ref.userId) : null;
      // A disabled user has no account here: oidc-provider then refuses the refresh token grant
      // (invalid_grant) and drops a signed-in session back to the login page.
      if (!user || user.disabled) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          name: [user.firstName, user.lastName].filter(Boolean).join(' ') || user.username,
          preferred_username: user.username,
          given_name: user.firstName ?? undefined,
          family_name: user.lastName ?? undefined,
          email: user.email ?? undefined,
        }),
      };
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = renderErrorPage(String(out.error ?? 'error'), String(out.error_description ?? ''));
    },
  };
  return new ProviderClass(d.issuer, configuration);
}
