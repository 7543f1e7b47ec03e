/**
 * Sign-in through Pylon's own OAuth 2.0 server: authorization code with PKCE (S256) for the public
 * client `pylon-public`, redirect URI <origin>/console/callback (always registered on the issuer's
 * origin). The access token lives in sessionStorage (gone with the tab), never an API key. An
 * expired or refused token sends the operator through sign-in again, back to the same page.
 */
import { sha256 } from './sha256';

const CLIENT_ID = 'pylon-public';
const TOKEN_KEY = 'pylon.console.token';
const FLOW_KEY = 'pylon.console.flow';
export const CALLBACK_PATH = '/console/callback';

interface StoredToken {
  accessToken: string;
  expiresAt: number;
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
    scope: 'openid webapi',
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
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error_description?: string };
  if (!res.ok || !body.access_token) throw new Error(`The sign-in could not be completed: ${body.error_description ?? `HTTP ${res.status}`}`);
  const stored: StoredToken = { accessToken: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 900) * 1000 };
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify(stored));
  return flow.returnTo;
}

/** The current access token, or null when there is none or it has (nearly) expired. */
export function accessToken(): string | null {
  const t = JSON.parse(sessionStorage.getItem(TOKEN_KEY) ?? 'null') as StoredToken | null;
  return t && t.expiresAt - 10_000 > Date.now() ? t.accessToken : null;
}

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}
