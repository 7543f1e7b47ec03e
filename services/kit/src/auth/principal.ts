import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
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

/**
 * Signs and verifies the internal principal token (HS256 over a shared secret). Subgraphs
 * trust nothing else: a request without a valid token is refused, so calling a subgraph
 * directly with a forged header gets nowhere.
 */
export class InternalTokens {
  private readonly key: Uint8Array;
  /** Signed tokens reused for half their lifetime, and verified ones remembered until expiry: both sit on every request. */
  private readonly signed = new Map<string, { token: Promise<string>; until: number }>();
  private readonly verified = new Map<string, { principal: Principal; until: number }>();

  constructor(
    secret: string,
    private readonly ttlSeconds = 60,
  ) {
    if (secret.length < 32) throw new Error('internal secret must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
  }

  sign(p: Principal): Promise<string> {
    const cacheKey = JSON.stringify([p.accountId, p.userId, p.userName, p.roles, p.policies, p.isOwner, p.via, claimOf(p.credential)]);
    const now = Date.now();
    const hit = this.signed.get(cacheKey);
    if (hit && hit.until > now) return hit.token;
    const token = this.signFresh(p);
    remember(this.signed, cacheKey, { token, until: now + (this.ttlSeconds * 1000) / 2 });
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
      remember(this.verified, token, { principal, until: (payload.exp ?? 0) * 1000 });
      return principal;
    } catch (e) {
      if (e instanceof AppError) throw e;
      const reason = e instanceof joseErrors.JWTExpired ? 'expired' : 'invalid';
      throw new AppError('UNAUTHENTICATED', `${reason} internal credentials`);
    }
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V, max = 10_000): void {
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/** Throws FORBIDDEN unless the principal holds the policy. Resolvers guard through operation-rules (guardQuery, guardMutation, guardEntity) instead. */
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

/** Whether `p` is the internal caller signed for exactly this device (see devicePrincipal). */
export const isDevicePrincipal = (p: Principal, deviceId: string): boolean => p.via === 'internal' && p.userId === `device:${deviceId}`;
