/** A bearer token for the benchmark: the authorization code flow with PKCE, as a browser and an app would walk it. */
import { createHash, randomBytes } from 'node:crypto';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

export async function bearerToken(issuer: string, user: { username: string; password: string }, clientId = 'pylon-public'): Promise<string> {
  const cookies = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(url, issuer), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0] ?? '';
      const i = pair.indexOf('=');
      if (i > 0) cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const post = (url: string, fields: Record<string, string>) =>
    go(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  let url = `/connect/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid webapi', code_challenge: challenge, code_challenge_method: 'S256' })}`;
  for (let i = 0; i < 12; i++) {
    const res = await go(url);
    if (res.status >= 300 && res.status < 400) {
      url = res.headers.get('location')!;
      if (url.startsWith(REDIRECT_URI)) {
        const code = new URL(url).searchParams.get('code');
        if (!code) throw new Error(`authorization failed: ${url}`);
        const token = await post('/connect/token', {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
          client_id: clientId,
        });
        const body = (await token.json()) as { access_token?: string };
        if (!body.access_token) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
        return body.access_token;
      }
      continue;
    }
    const html = await res.text();
    const uid = /\/connect\/interaction\/([^/"]+)\//.exec(html)?.[1];
    if (!uid) throw new Error(`unexpected page at ${url} (${res.status})`);
    const next = html.includes('name="password"')
      ? await post(`/connect/interaction/${uid}/login`, user)
      : await post(`/connect/interaction/${uid}/confirm`, {});
    url = next.headers.get('location') ?? '';
    if (!url) throw new Error(`sign-in failed (${next.status})`);
  }
  throw new Error('the OAuth flow did not finish');
}
