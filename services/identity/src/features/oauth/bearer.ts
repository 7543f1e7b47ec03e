/**
 * Verifies `Authorization: Bearer` access tokens issued by our OAuth server, with jose: RS256
 * only (so `alg: none` and HS256-signed-with-the-public-key forgeries fail), issuer, audience and
 * `typ: at+jwt` pinned, the key found by `kid` in our JWKS only, expiry checked, and scope
 * `webapi` required. A valid token acts as its user's login: the principal carries the user's
 * current roles (looked up, so role changes apply within the cache window). Unlike an API key,
 * a token does not need the API role: the user signed in themselves and consented (README).
 */
import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Cache, Principal } from '@pylon/kit';
import { policiesFor } from '../../domain/roles.js';
import type { IdentityRepository } from '../../shared/identity.repository.js';
import { guardedCache } from '../../shared/cache-guard.js';
import { touchUser } from '../../shared/touch.js';
import { API_SCOPE, parseSubject } from '../../domain/oauth-settings.js';

export interface BearerConfig {
  issuer: string;
  audience: string;
  jwks: JSONWebKeySet;
  clientId: string;
}

export class BearerAuthenticator {
  private config: (BearerConfig & { keys: JWTVerifyGetKey }) | undefined;
  private readonly cache: Pick<Cache, 'get' | 'set'>;

  constructor(private readonly deps: { repo: IdentityRepository; cache: Cache; cacheTtlSeconds: number; now?: () => number }) {
    this.cache = guardedCache(deps.cache);
  }

  configure(c: BearerConfig): void {
    this.config = { ...c, keys: createLocalJWKSet(c.jwks) };
  }

  get configured(): boolean {
    return this.config !== undefined;
  }

  /** The principal for a valid token; null for anything else (never throws for a bad token). */
  async authenticate(token: string): Promise<Principal | null> {
    const c = this.config;
    if (!c || !token || token.length > 8192) return null;
    const now = (this.deps.now ?? Date.now)();
    const cacheKey = `principal:bearer:${createHash('sha256').update(token).digest('hex')}`;
    const cached = await this.cache.get<Principal & { exp: number }>(cacheKey);
    if (cached && cached.exp > now) {
      const { exp: _exp, ...principal } = cached;
      return principal;
    }
    let payload;
    try {
      ({ payload } = await jwtVerify(token, c.keys, {
        algorithms: ['RS256'],
        issuer: c.issuer,
        audience: c.audience,
        typ: 'at+jwt',
        requiredClaims: ['sub', 'exp', 'iat', 'client_id'],
        currentDate: new Date(now),
      }));
    } catch {
      return null;
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    if (!scopes.includes(API_SCOPE) || payload.client_id !== c.clientId) return null;
    const ref = parseSubject(String(payload.sub));
    const user = ref ? await this.deps.repo.findUser(ref.accountId, ref.userId) : null;
    // A disabled user's token is refused from the first look-up after the change (the cache above
    // holds an answer at most cacheTtlSeconds, never past the token's own expiry).
    if (!user || user.disabled) return null;
    // Always there: requiredClaims refuses a token without exp (RFC 9068), so no stream or cache
    // entry holds a token that never expires, nor one read as expired at 0.
    const exp = Number(payload.exp) * 1000;
    const principal: Principal = {
      accountId: user.accountId,
      userId: user.id,
      userName: user.username,
      roles: user.roles,
      policies: policiesFor(user.roles),
      isOwner: user.roles.includes('Owner'),
      via: 'bearer',
      credential: { kind: 'bearer', expiresAt: exp },
    };
    const ttl = Math.min(this.deps.cacheTtlSeconds, Math.floor((exp - now) / 1000));
    if (ttl >= 1) await this.cache.set(cacheKey, { ...principal, exp }, ttl);
    void touchUser(this.deps.repo, user, now);
    return principal;
  }
}
