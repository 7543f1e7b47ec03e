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
}

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

  constructor(secret: string, private readonly ttlSeconds = 60) {
    if (secret.length < 32) throw new Error('internal secret must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
  }

  sign(p: Principal): Promise<string> {
    return new SignJWT({ acc: p.accountId, name: p.userName, roles: p.roles, pol: p.policies, own: p.isOwner, via: p.via })
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
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
      const pol = Array.isArray(payload.pol) ? payload.pol.filter((x): x is Policy => typeof x === 'string' && isPolicy(x)) : [];
      if (typeof payload.acc !== 'string' || typeof payload.sub !== 'string') throw new Error('malformed');
      return {
        accountId: payload.acc,
        userId: payload.sub,
        userName: typeof payload.name === 'string' ? payload.name : '',
        roles: Array.isArray(payload.roles) ? payload.roles.map(String) : [],
        policies: pol,
        isOwner: payload.own === true,
        via: payload.via === 'bearer' ? 'bearer' : payload.via === 'internal' ? 'internal' : 'api-key',
      };
    } catch (e) {
      if (e instanceof AppError) throw e;
      const reason = e instanceof joseErrors.JWTExpired ? 'expired' : 'invalid';
      throw new AppError('UNAUTHENTICATED', `${reason} internal credentials`);
    }
  }
}

/** Throws FORBIDDEN unless the principal holds the policy. */
export function requirePolicy(p: Principal, policy: Policy): void {
  if (!p.policies.includes(policy)) throw new AppError('FORBIDDEN', `this operation requires the ${policy} policy`);
}
