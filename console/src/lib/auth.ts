/**
 * Sign-in through Pylon's own OAuth 2.0 server: authorization code with PKCE (S256) for the public
 * client `pylon-public`, redirect URI <origin>/console/callback (always registered on the issuer's
 * origin). The tokens live in sessionStorage (gone with the tab), never an API key. The console
 * asks for `offline_access` (oidc-provider grants it only with prompt=consent, so the consent page
 * shows at each sign-in) and gets a refresh token: an access token about to expire is renewed with
 * it, once for all concurrent calls; the server rotates it at every use and revokes the whole grant
 * when a used one comes back. Sign-out revokes it. Only a refused refresh sends the operator
 * through sign-in again, back to the same page.
 */
import { sha256 } from './sha256';

const CLIENT_ID = 'pylon-public';
const TOKEN_KEY = 'pylon.console.token';
const FLOW_KEY = 'pylon.console.flow';
export const CALLBACK_PATH = '/console/callback';

interface StoredToken {
  accessToken: string;
  expiresAt: number;
  refreshToken?: string;
}

interface TokenAnswer {
  access_token?: string;
  expires_in?: number;
  refresh_token?: string;
  error_description?: string;
}

const stored = () => JSON.parse(sessionStorage.getItem(TOKEN_KEY) ?? 'null') as StoredToken | null;
function keep(body: TokenAnswer, previousRefresh?: string): void {
  const t: StoredToken = {
    accessToken: body.access_token!,
    expiresAt: Date.now() + (body.expires_in ?? 900) * 1000,
    refreshToken: body.refresh_token ?? previousRefresh,
  };
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify(t));
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = (n: number) => b64url(crypto.getRandomValues(new Uint8Array(n)));

async function challengeOf(verifier: string): Promise<string> {
  const bytes = new TextEncoder().encode(verifier);
  const digest = crypto.subtle ? new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)) : sha256(bytes);
  return b64url(digest);
}

const redirectUri = () => `${location.origin}${CALLBACK_PATH}`;

/** Leaves for the sign-in page; comes back to `returnTo` (a /console path). */
export async function signIn(returnTo = location.pathname + location.search): Promise<void> {
  const verifier = random(48);
  const state = random(16);
  sessionStorage.setItem(FLOW_KEY, JSON.stringify({ verifier, state, returnTo: returnTo.startsWith('/console') ? returnTo : '/console/' }));
  const q = new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    scope: 'openid webapi offline_access',
    prompt: 'consent',
    redirect_uri: redirectUri(),
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
    state,
  });
  location.assign(`/connect/authorize?${q}`);
}

/** At /console/callback: trades the code for a token; answers where to go next. */
export async function completeSignIn(): Promise<string> {
  const params = new URLSearchParams(location.search);
  const flow = JSON.parse(sessionStorage.getItem(FLOW_KEY) ?? 'null') as { verifier: string; state: string; returnTo: string } | null;
  sessionStorage.removeItem(FLOW_KEY);
  if (params.get('error')) throw new Error(`Sign-in was refused: ${params.get('error_description') || params.get('error')}`);
  if (!flow || params.get('state') !== flow.state) throw new Error('This sign-in was started in another tab or has expired. Sign in again.');
  const res = await fetch('/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUri(),
      code: params.get('code') ?? '',
      code_verifier: flow.verifier,
    }),
  });
  const body = (await res.json().catch(() => ({}))) as TokenAnswer;
  if (!res.ok || !body.access_token) throw new Error(`The sign-in could not be completed: ${body.error_description ?? `HTTP ${res.status}`}`);
  keep(body);
  return flow.returnTo;
}

let refreshing: Promise<string | null> | null = null;

/** Trades the refresh token for a new pair; null (and no session) when the server refuses it. */
function refresh(refreshToken: string): Promise<string | null> {
  refreshing ??= (async () => {
    try {
      const res = await fetch('/connect/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: refreshToken }),
      });
      const body = (await res.json().catch(() => ({}))) as TokenAnswer;
      if (!res.ok || !body.access_token) {
        sessionStorage.removeItem(TOKEN_KEY);
        return null;
      }
      keep(body, refreshToken);
      return body.access_token;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** A usable access token: the stored one, or a refreshed one when it has (nearly) expired; null: sign in. */
export async function freshAccessToken(): Promise<string | null> {
  const t = stored();
  if (!t) return null;
  if (t.expiresAt - 30_000 > Date.now()) return t.accessToken;
  return t.refreshToken ? refresh(t.refreshToken) : null;
}

/** Whether this tab has a session: a live access token or a refresh token to renew it. */
export function hasSession(): boolean {
  const t = stored();
  return !!t && (!!t.refreshToken || t.expiresAt - 30_000 > Date.now());
}

/** Ends the session: the refresh token is revoked at the server (its grant with it), the tab forgets both. */
export function signOut(): void {
  const t = stored();
  sessionStorage.removeItem(TOKEN_KEY);
  if (t?.refreshToken)
    void fetch('/connect/revocation', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: CLIENT_ID, token: t.refreshToken, token_type_hint: 'refresh_token' }),
      keepalive: true,
    }).catch(() => undefined);
}
