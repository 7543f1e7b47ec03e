import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
import { createBoundedCache } from '../graphql/bounded-cache.js';
import { isPolicy, type Policy } from './policies.js';

/** Who is calling, as established at the edge and carried to subgraphs in a signed token. */
export interface Principal {
  accountId: string;
  userId: string;
  userName: string;
  /** Role names, e.g. ['Owner', 'API']. */
  roles: string[];
  policies: Policy[];
  isOwner: boolean;
  /** How the caller authenticated: api-key, bearer, internal. */
  via: 'api-key' | 'bearer' | 'internal';
  /** The credential it was resolved from (absent for internal callers), carried in the signed token. */
  credential?: CredentialRef;
}

/**
 * Which credential a principal came from, never the secret: an API key's id, or a bearer token's
 * expiry (epoch ms). A process that keeps a connection open for the caller (the live event stream,
 * issue 34 M3) checks it again by this: identity looks the key up in its own store, a token ends
 * at its expiry.
 */
export type CredentialRef = { kind: 'api-key'; id: string } | { kind: 'bearer'; expiresAt: number };

function credentialClaim(v: unknown): CredentialRef | undefined {
  const c = v as { k?: unknown; id?: unknown; exp?: unknown } | null;
  if (c?.k === 'api-key' && typeof c.id === 'string') return { kind: 'api-key', id: c.id };
  if (c?.k === 'bearer' && typeof c.exp === 'number') return { kind: 'bearer', expiresAt: c.exp };
  return undefined;
}
const claimOf = (c: CredentialRef | undefined) => (c?.kind === 'api-key' ? { k: c.kind, id: c.id } : c ? { k: c.kind, exp: c.expiresAt } : undefined);

export const INTERNAL_TOKEN_HEADER = 'x-pylon-internal-token';
const ISSUER = 'pylon-gateway';
const AUDIENCE = 'pylon-subgraph';

/** Each of InternalTokens' caches. */
export const PRINCIPAL_CACHE_BOUNDS = { maxEntries: 10_000, maxBytes: 16 * 2 ** 20 };

/**
 * Signs and verifies the internal principal token (HS256 over a shared secret). Subgraphs
 * trust nothing else: a request without a valid token is refused, so calling a subgraph
 * directly with a forged header gets nowhere.
 */
export class InternalTokens {
  private readonly key: Uint8Array;
  /**
   * Signed tokens reused for half their lifetime, and verified ones remembered until expiry: both sit
   * on every request. Each keeps 10,000 principals and ~16 MiB (two bytes per character of the
   * principal's JSON and of the token, plus 200 per entry): a principal's size is the account's
   * (names, roles), not bounded by the caller (issue 34).
   */
  private readonly signed = createBoundedCache<{ token: Promise<string>; until: number }>(PRINCIPAL_CACHE_BOUNDS);
  private readonly verified = createBoundedCache<{ principal: Principal; until: number }>(PRINCIPAL_CACHE_BOUNDS);

  constructor(
    secret: string,
    private readonly ttlSeconds = 60,
  ) {
    if (secret.length < 32) throw new Error('internal secret must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
  }

  /** What its caches hold: entries and estimated bytes, signed and verified together. */
  get cached(): { entries: number; bytes: number } {
    return { entries: this.signed.size + this.verified.size, bytes: this.signed.bytes + this.verified.bytes };
  }

  sign(p: Principal): Promise<string> {
    const cacheKey = JSON.stringify([p.accountId, p.userId, p.userName, p.roles, p.policies, p.isOwner, p.via, claimOf(p.credential)]);
    const now = Date.now();
    const hit = this.signed.get(cacheKey);
    if (hit && hit.until > now) return hit.token;
    const token = this.signFresh(p);
    // The token is ~1.4 times the principal's JSON (base64url), plus the JWT header and claims.
    this.signed.set(cacheKey, { token, until: now + (this.ttlSeconds * 1000) / 2 }, 200 + 2 * (cacheKey.length * 2.5 + 300));
    return token;
  }

  private signFresh(p: Principal): Promise<string> {
    const cred = claimOf(p.credential);
    return new SignJWT({ acc: p.accountId, name: p.userName, roles: p.roles, pol: p.policies, own: p.isOwner, via: p.via, ...(cred ? { cred } : {}) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(p.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  async verify(token: string | undefined): Promise<Principal> {
    if (!token) throw new AppError('UNAUTHENTICATED', 'missing internal credentials');
    const hit = this.verified.get(token);
    if (hit && hit.until > Date.now()) return hit.principal;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
      const pol = Array.isArray(payload.pol) ? payload.pol.filter((x): x is Policy => typeof x === 'string' && isPolicy(x)) : [];
      if (typeof payload.acc !== 'string' || typeof payload.sub !== 'string') throw new Error('malformed');
      const principal: Principal = {
        accountId: payload.acc,
        userId: payload.sub,
        userName: typeof payload.name === 'string' ? payload.name : '',
        roles: Array.isArray(payload.roles) ? payload.roles.map(String) : [],
        policies: pol,
        isOwner: payload.own === true,
        via: payload.via === 'bearer' ? 'bearer' : payload.via === 'internal' ? 'internal' : 'api-key',
      };
      const credential = credentialClaim(payload.cred);
      if (credential) principal.credential = credential;
      this.verified.set(token, { principal, until: (payload.exp ?? 0) * 1000 }, 200 + 2 * (token.length + JSON.stringify(principal).length));
      return principal;
    } catch (e) {
      if (e instanceof AppError) throw e;
      const reason = e instanceof joseErrors.JWTExpired ? 'expired' : 'invalid';
      throw new AppError('UNAUTHENTICATED', `${reason} internal credentials`);
    }
  }
}

/** Throws FORBIDDEN unless the principal holds the policy. Root fields are guarded once by createSubgraph (guardRootFields) and entities by guardEntityReferences, both from operation-rules. */
export function requirePolicy(p: Principal, policy: Policy): void {
  if (!p.policies.includes(policy)) throw new AppError('FORBIDDEN', `this operation requires the ${policy} policy`);
}

/**
 * The internal caller one service signs to ask another about one device (the devices process asking
 * the scheduling process for a player manifest): no user, no policies, the device's account.
 */
export const devicePrincipal = (accountId: string, deviceId: string): Principal => ({
  accountId,
  userId: `device:${deviceId}`,
  userName: 'player',
  roles: [],
  policies: [],
  isOwner: false,
  via: 'internal',
});

/**
 * The internal caller one service signs to look things up in another process for one account
 * (`service:NAME`), holding only `policies`: the other process answers from that account's data and
 * nothing else.
 */
export const servicePrincipal = (accountId: string, service: string, userName: string, policies: Policy[]): Principal => ({
  accountId,
  userId: `service:${service}`,
  userName,
  roles: [],
  policies,
  isOwner: false,
  via: 'internal',
});

/** Whether `p` is the internal caller signed for exactly this device (see devicePrincipal). */
export const isDevicePrincipal = (p: Principal, deviceId: string): boolean => p.via === 'internal' && p.userId === `device:${deviceId}`;
