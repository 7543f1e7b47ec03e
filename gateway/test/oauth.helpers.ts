/** Walks the OAuth 2.0 authorization code flow with PKCE over real HTTP, as a browser and a client app would. */
import { createHash, randomBytes } from 'node:crypto';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const CLIENT_ID = 'pylon-public';

/** A minimal cookie jar: every cookie the server set, sent back on every request (paths ignored). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const i = pair.indexOf('=');
      if (i > 0) this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export function authorizeUrl(
  issuer: string,
  o: { challenge?: string; redirectUri?: string; scope?: string; state?: string; method?: string; clientId?: string; prompt?: string },
): string {
  const u = new URL('/connect/authorize', issuer);
  u.searchParams.set('client_id', o.clientId ?? CLIENT_ID);
  u.searchParams.set('redirect_uri', o.redirectUri ?? REDIRECT_URI);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('scope', o.scope ?? 'openid webapi');
  u.searchParams.set('state', o.state ?? 'st4te');
  if (o.prompt) u.searchParams.set('prompt', o.prompt);
  if (o.challenge) {
    u.searchParams.set('code_challenge', o.challenge);
    u.searchParams.set('code_challenge_method', o.method ?? 'S256');
  }
  return u.toString();
}

/** One browser step: a request without following redirects, cookies kept. */
export async function step(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header() } });
  jar.store(res);
  return res;
}

export const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

const location = (res: Response, base: string) => {
  const l = res.headers.get('location');
  if (!l) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(l, base).toString();
};

export interface FlowResult {
  code: string;
  verifier: string;
  jar: CookieJar;
  /** The pages the browser saw, in order (status and URL). */
  trail: { status: number; url: string }[];
}

/**
 * Browser side: authorize -> sign-in page -> credentials -> consent page -> allow -> redirect with
 * the code. Follows redirects by hand until one leaves for the client's redirect URI.
 */
export async function browserFlow(
  issuer: string,
  user: { username: string; password: string },
  opts: { jar?: CookieJar; scope?: string; prompt?: string } = {},
): Promise<FlowResult> {
  const jar = opts.jar ?? new CookieJar();
  const { verifier, challenge } = pkce();
  const trail: { status: number; url: string }[] = [];
  let url = authorizeUrl(issuer, { challenge, ...(opts.scope ? { scope: opts.scope } : {}), ...(opts.prompt ? { prompt: opts.prompt } : {}) });
  for (let i = 0; i < 12; i++) {
    const res = await step(jar, url);
    trail.push({ status: res.status, url });
    if (res.status >= 300 && res.status < 400) {
      url = location(res, issuer);
      if (url.startsWith(REDIRECT_URI)) {
        const params = new URL(url).searchParams;
        if (params.get('error')) throw new Error(`authorization failed: ${params.get('error')} ${params.get('error_description')}`);
        return { code: params.get('code')!, verifier, jar, trail };
      }
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`unexpected ${res.status} at ${url}: ${html.slice(0, 300)}`);
    const uid = /\/connect\/interaction\/([^/"]+)\//.exec(html)?.[1];
    if (!uid) throw new Error(`no interaction form at ${url}`);
    const target: { path: string; body: Record<string, string> } = html.includes('name="password"')
      ? { path: `/connect/interaction/${uid}/login`, body: { username: user.username, password: user.password } }
      : { path: `/connect/interaction/${uid}/confirm`, body: {} };
    const posted = await step(jar, new URL(target.path, issuer).toString(), form(target.body));
    trail.push({ status: posted.status, url: target.path });
    if (posted.status !== 303 && posted.status !== 302)
      throw new Error(`form ${target.path} answered ${posted.status}: ${(await posted.text()).slice(0, 300)}`);
    url = location(posted, issuer);
  }
  throw new Error('the flow did not reach the redirect URI');
}

export async function exchange(issuer: string, fields: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(
    new URL('/connect/token', issuer),
    form({ grant_type: 'authorization_code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, ...fields }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** The whole flow: a fresh access token for the user. */
export async function accessTokenFor(issuer: string, user: { username: string; password: string }): Promise<string> {
  const { code, verifier } = await browserFlow(issuer, user);
  const t = await exchange(issuer, { code, code_verifier: verifier });
  if (t.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(t.body)}`);
  return t.body.access_token as string;
}
