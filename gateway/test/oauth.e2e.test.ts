/**
 * OAuth 2.0 / OpenID Connect over real HTTP: the authorization code flow with PKCE (sign-in page,
 * consent page, code, token), a GraphQL and a REST call with the bearer token, and every refusal
 * of SECURITY.md's Authentication table for the OAuth server and for JWT verification.
 */
import { generateKeyPair, SignJWT, exportJWK, importJWK, type JWK } from 'jose';
import { createUser, type IdentityService } from '@pylon/identity';
import { startHarness, type Harness } from './harness.js';
import { authorizeUrl, browserFlow, CookieJar, exchange, form, pkce, REDIRECT_URI, step, accessTokenFor, CLIENT_ID } from './oauth.helpers.js';

type SigningKey = Parameters<SignJWT['sign']>[0];
const OWNER = { username: 'owner@demo.example', password: 'demo-owner-password-1' };
let h: Harness;
let identity: IdentityService;

beforeAll(async () => {
  h = await startHarness({ SIGNAGE_DEMO_PASSWORD: OWNER.password, AUTH_FAILURE_POINTS: '1000' });
  identity = h.subgraphs.identity as unknown as IdentityService;
}, 60_000);
afterAll(() => h.stop());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('discovery', () => {
  test('/.well-known/openid-configuration names the endpoints at {auth_url}/connect/*, S256 only', async () => {
    const res = await fetch(`${h.baseUrl}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const d = (await res.json()) as Record<string, any>;
    expect(d.issuer).toBe(h.oauthIssuer);
    expect(d.authorization_endpoint).toBe(`${h.oauthIssuer}/connect/authorize`);
    expect(d.token_endpoint).toBe(`${h.oauthIssuer}/connect/token`);
    expect(d.jwks_uri).toBe(`${h.oauthIssuer}/connect/jwks`);
    expect(d.code_challenge_methods_supported).toEqual(['S256']);
    expect(d.scopes_supported).toEqual(expect.arrayContaining(['openid', 'webapi', 'offline_access']));
    const jwks = (await (await fetch(d.jwks_uri)).json()) as { keys: JWK[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys.every((k) => k.kty === 'RSA' && !('d' in k) && !('p' in k))).toBe(true);
  });
});

describe('authorization code flow with PKCE', () => {
  test('sign-in, consent, code, token, then GraphQL and REST with the bearer token', async () => {
    const flow = await browserFlow(h.oauthIssuer, OWNER);
    // authorize -> sign-in page -> credentials -> consent page -> allow -> back to the client
    expect(flow.trail.some((t) => t.url.endsWith('/login'))).toBe(true);
    expect(flow.trail.some((t) => t.url.endsWith('/confirm'))).toBe(true);
    const t = await exchange(h.oauthIssuer, { code: flow.code, code_verifier: flow.verifier });
    expect(t.status).toBe(200);
    expect(t.body.token_type).toBe('Bearer');
    expect(t.body.scope).toContain('webapi');
    expect(typeof t.body.id_token).toBe('string');
    const token = t.body.access_token as string;
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });

    const r = await h.gql('{ permissions { isAdministrator } account { id } }', { key: null, headers: bearer(token) });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ permissions: { isAdministrator: true }, account: { id: 'demo-account' } });

    const rest = await fetch(`${h.baseUrl}/devices?take=2`, { headers: bearer(token) });
    expect(rest.status).toBe(200);
    expect((await rest.json()) as unknown[]).toHaveLength(2);

    // Legacy REST takes only the api_key parameter (spec, Authentication rule 5).
    const legacy = await fetch(`${h.legacyUrl}/account`, { headers: bearer(token) });
    expect(legacy.status).toBe(401);
  });

  test('offline_access (with prompt=consent) adds a refresh token; the refresh grant issues a new access token', async () => {
    const flow = await browserFlow(h.oauthIssuer, OWNER, { scope: 'openid webapi offline_access', prompt: 'consent' });
    const t = await exchange(h.oauthIssuer, { code: flow.code, code_verifier: flow.verifier });
    expect(typeof t.body.refresh_token).toBe('string');
    const res = await fetch(`${h.oauthIssuer}/connect/token`, form({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: CLIENT_ID }));
    const refreshed = (await res.json()) as Record<string, any>;
    expect(res.status).toBe(200);
    expect((await h.gql('{ account { id } }', { key: null, headers: bearer(refreshed.access_token) })).status).toBe(200);
  });

  test('a disabled user: the refresh grant is invalid_grant, sign-in fails, the access token is refused; enabling lets them back', async () => {
    const who = { username: 'leaver-oauth@demo.example', password: 'leaver-password-1' };
    const u = await createUser(identity.repo, { accountId: 'demo-account', username: who.username, roles: ['Editor'], password: who.password });
    const flow = await browserFlow(h.oauthIssuer, who, { scope: 'openid webapi offline_access', prompt: 'consent' });
    const t = await exchange(h.oauthIssuer, { code: flow.code, code_verifier: flow.verifier });
    const setDisabled = async (disabled: boolean) =>
      (
        await h.gql('mutation($id: String!, $d: Boolean) { updateUser(id: $id, input: { disabled: $d }) { success } }', {
          variables: { id: u.id, d: disabled },
        })
      ).body.data?.updateUser.success;
    expect(await setDisabled(true)).toBe(true);
    const refresh = () =>
      fetch(`${h.oauthIssuer}/connect/token`, form({ grant_type: 'refresh_token', refresh_token: t.body.refresh_token, client_id: CLIENT_ID }));
    const refused = await refresh();
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await h.gql('{ account { id } }', { key: null, headers: bearer(t.body.access_token) })).status).toBe(401);
    await expect(accessTokenFor(h.oauthIssuer, who)).rejects.toThrow(/401/);
    // Enabled again, the same access token works (unit tests cover keys and a fresh sign-in's checks).
    expect(await setDisabled(false)).toBe(true);
    expect((await h.gql('{ account { id } }', { key: null, headers: bearer(t.body.access_token) })).status).toBe(200);
  });

  test('a second authorization in the same browser skips sign-in and consent', async () => {
    const first = await browserFlow(h.oauthIssuer, OWNER);
    const { challenge } = pkce();
    const res = await step(first.jar, authorizeUrl(h.oauthIssuer, { challenge }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${REDIRECT_URI}\\?code=`));
  });

  test('a token acts as its user login: lastActivity moves, and the API role is not needed', async () => {
    await createUser(identity.repo, { accountId: 'demo-account', username: 'editor-no-api@demo.example', roles: ['Editor'], password: 'editor-password-1' });
    const token = await accessTokenFor(h.oauthIssuer, { username: 'editor-no-api@demo.example', password: 'editor-password-1' });
    const r = await h.gql('{ permissions { isAdministrator allowedMutations } }', { key: null, headers: bearer(token) });
    expect(r.body.data?.permissions.isAdministrator).toBe(false);
    // lastActivity is written after the answer (fire and forget): poll for it rather than race it.
    let lastActivity: unknown = null;
    for (let i = 0; i < 50 && !lastActivity; i++) {
      const [u] = await identity.repo.users.find('demo-account', { username: 'editor-no-api@demo.example' });
      lastActivity = u!.lastActivity;
      if (!lastActivity) await new Promise((res) => setTimeout(res, 100));
    }
    expect(lastActivity).not.toBeNull();
  });

  test('wrong password: the sign-in page again with 401, and no code', async () => {
    const jar = new CookieJar();
    const start = await step(jar, authorizeUrl(h.oauthIssuer, { challenge: pkce().challenge }));
    const page = await step(jar, new URL(start.headers.get('location')!, h.oauthIssuer).toString());
    const uid = /\/connect\/interaction\/([^/"]+)\//.exec(await page.text())![1]!;
    const res = await step(jar, `${h.oauthIssuer}/connect/interaction/${uid}/login`, form({ username: OWNER.username, password: 'wrong-password' }));
    expect(res.status).toBe(401);
    expect(await res.text()).toMatch(/wrong password/);
  });

  test('the sign-in form cannot be posted without the interaction cookie (another browser / site)', async () => {
    const jar = new CookieJar();
    const start = await step(jar, authorizeUrl(h.oauthIssuer, { challenge: pkce().challenge }));
    const uid = /interaction\/([^/?]+)/.exec(start.headers.get('location')!)![1]!;
    const res = await fetch(`${h.oauthIssuer}/connect/interaction/${uid}/login`, {
      ...form({ username: OWNER.username, password: OWNER.password }),
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
  });
});

describe('OAuth server refusals (SECURITY.md)', () => {
  test('public client without PKCE: invalid_request', async () => {
    const res = await step(new CookieJar(), authorizeUrl(h.oauthIssuer, {}));
    const loc = new URL(res.headers.get('location')!, h.oauthIssuer);
    expect(loc.toString().startsWith(REDIRECT_URI)).toBe(true);
    expect(loc.searchParams.get('error')).toBe('invalid_request');
    expect(loc.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  test('plain PKCE method is refused', async () => {
    const res = await step(new CookieJar(), authorizeUrl(h.oauthIssuer, { challenge: 'a'.repeat(43), method: 'plain' }));
    const loc = new URL(res.headers.get('location')!, h.oauthIssuer);
    expect(loc.searchParams.get('error')).toBe('invalid_request');
  });

  test('redirect_uri not registered: refused on the page, never redirected there', async () => {
    const res = await step(new CookieJar(), authorizeUrl(h.oauthIssuer, { challenge: pkce().challenge, redirectUri: 'https://evil.example/cb' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toMatch(/redirect_uri/);
  });

  test('unknown client: refused', async () => {
    const res = await step(new CookieJar(), authorizeUrl(h.oauthIssuer, { challenge: pkce().challenge, clientId: 'someone-else' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  test('a code is used once: the second exchange is invalid_grant', async () => {
    const { code, verifier } = await browserFlow(h.oauthIssuer, OWNER);
    expect((await exchange(h.oauthIssuer, { code, code_verifier: verifier })).status).toBe(200);
    const again = await exchange(h.oauthIssuer, { code, code_verifier: verifier });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  test('wrong code_verifier and mismatched redirect_uri at the token endpoint: invalid_grant', async () => {
    const a = await browserFlow(h.oauthIssuer, OWNER);
    const bad = await exchange(h.oauthIssuer, { code: a.code, code_verifier: pkce().verifier });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_grant');
    const b = await browserFlow(h.oauthIssuer, OWNER);
    const wrongUri = await exchange(h.oauthIssuer, { code: b.code, code_verifier: b.verifier, redirect_uri: 'http://127.0.0.1:8765/other' });
    expect(wrongUri.status).toBe(400);
    expect(['invalid_grant', 'invalid_request']).toContain(wrongUri.body.error);
  });
});

describe('bearer token verification (SECURITY.md JWT row): 401 for every forgery', () => {
  let good: string;
  let signingKey: SigningKey;
  let kid: string;
  const claims = () => ({ scope: 'openid webapi', client_id: CLIENT_ID });

  beforeAll(async () => {
    good = await accessTokenFor(h.oauthIssuer, OWNER);
    // The server's own signing key, from the documents store: forgeries differ in one thing only.
    const { loadOrCreateOAuthKeys } = await import('@pylon/identity/features/oauth/oauth-keys');
    const keys = await loadOrCreateOAuthKeys(identity.repo.store);
    const jwk = keys.privateJwks.keys[0]!;
    kid = jwk.kid!;
    signingKey = (await importJWK(jwk, 'RS256')) as SigningKey;
  });

  /** A token like the server's, one thing changed; `exp: null` leaves the expiry out. */
  const sign = (o: { iss?: string; aud?: string; exp?: number | string | null; scope?: string; kid?: string; key?: SigningKey; typ?: string } = {}) => {
    const jwt = new SignJWT({ ...claims(), ...(o.scope !== undefined ? { scope: o.scope } : {}) })
      .setProtectedHeader({ alg: 'RS256', typ: o.typ ?? 'at+jwt', kid: o.kid ?? kid })
      .setSubject('demo-account:demo-owner')
      .setIssuer(o.iss ?? h.oauthIssuer)
      .setAudience(o.aud ?? h.oauthIssuer)
      .setIssuedAt();
    return (o.exp === null ? jwt : jwt.setExpirationTime(o.exp ?? '5m')).sign(o.key ?? signingKey);
  };

  const call = (token: string) => h.gql('{ permissions { isAdministrator } }', { key: null, headers: bearer(token) });

  test('the real token and a well-formed token signed with the real key pass', async () => {
    expect((await call(good)).status).toBe(200);
    expect((await call(await sign())).status).toBe(200);
  });

  test.each([
    ['expired', () => sign({ exp: Math.floor(Date.now() / 1000) - 60 })],
    // RFC 9068 requires exp: a token that never expires is refused, so no principal has a token without an expiry.
    ['without exp', () => sign({ exp: null })],
    ['wrong issuer', () => sign({ iss: 'https://evil.example' })],
    ['wrong audience', () => sign({ aud: 'https://other-api.example' })],
    ['without the webapi scope', () => sign({ scope: 'openid' })],
    ['an ID token type', () => sign({ typ: 'JWT' })],
  ])('%s: 401', async (_name, make) => {
    const r = await call(await make());
    expect(r.status).toBe(401);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  test('tampered payload (signature no longer matches): 401', async () => {
    const [head, payload, sig] = good.split('.') as [string, string, string];
    const claimsObj = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claimsObj.sub = 'other-account:someone';
    const forged = `${head}.${Buffer.from(JSON.stringify(claimsObj)).toString('base64url')}.${sig}`;
    expect((await call(forged)).status).toBe(401);
  });

  test('alg none: 401', async () => {
    const [, payload] = good.split('.') as [string, string];
    const head = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    expect((await call(`${head}.${payload}.`)).status).toBe(401);
  });

  test('HS256 signed with the public key as the secret: 401', async () => {
    const jwks = (await (await fetch(`${h.oauthIssuer}/connect/jwks`)).json()) as { keys: JWK[] };
    const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
    const forged = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
      .setSubject('demo-account:demo-owner')
      .setIssuer(h.oauthIssuer)
      .setAudience(h.oauthIssuer)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(secret);
    expect((await call(forged)).status).toBe(401);
  });

  test('unknown kid (a key that is not ours): 401', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    expect((await exportJWK(publicKey)).kty).toBe('RSA');
    expect((await call(await sign({ key: privateKey as SigningKey, kid: 'not-our-key' }))).status).toBe(401);
  });

  test('REST refuses the same forgeries with 401 and its own error body', async () => {
    const res = await fetch(`${h.baseUrl}/account`, { headers: bearer(await sign({ exp: Math.floor(Date.now() / 1000) - 60 })) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
  });
});

describe('OAuth state is persistent', () => {
  test('codes and grants live in the documents store (never the in-memory adapter)', async () => {
    const { code } = await browserFlow(h.oauthIssuer, OWNER);
    const docs = await identity.repo.store
      .collection<{ model: string }>({
        name: 'oidc',
        uniqueIndexes: [
          { name: 'uid', fields: ['uid'], scope: 'global' },
          { name: 'userCode', fields: ['userCode'], scope: 'global' },
        ],
      })
      .find('_system', { model: 'AuthorizationCode' });
    expect(docs.some((d) => d.id === `AuthorizationCode:${code}`)).toBe(true);
  });
});

describe('the OAuth server is on the audit trail', () => {
  test("sign-ins (and failed ones) are audit events of the user's account", async () => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await fetch(`${h.baseUrl}/account/auditevents?controllerName=oauth&limit=1000`, { headers: { 'x-service-apikey': h.key } });
      const events = (await res.json()) as { event_type: string; user_name: string; interface: string; action_name: string; response_code: number }[];
      const login = events.find((e) => e.event_type === 'Login' && e.user_name === OWNER.username);
      const failed = events.find((e) => e.event_type === 'LoginFailed' && e.user_name === OWNER.username);
      if (login && failed) {
        expect(login).toMatchObject({ user_name: OWNER.username, interface: 'oauth', action_name: 'login', response_code: 303 });
        expect(failed).toMatchObject({ user_name: OWNER.username, response_code: 401 });
        return;
      }
      if (Date.now() > deadline) throw new Error(`no login events: ${JSON.stringify(events).slice(0, 400)}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  });
});
