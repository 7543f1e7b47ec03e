import { createHash, randomBytes } from 'node:crypto';
import { AppError, badInput, notFound, parseInstant, type Cache, type Principal, type PushEvents } from '@pylon/kit';
import { API_ROLE, policiesFor } from '../../domain/roles.js';
import { optionalText, requiredText } from '../../domain/validation.js';
import type { ApiKey, IdentityRepository } from '../../shared/identity.repository.js';
import { assertMayManage } from '../accounts/accounts.js';
import { recordRevocation } from './revocations.js';
import { guardedCache } from '../../shared/cache-guard.js';
import { touchUser } from '../../shared/touch.js';

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** Where a resolved principal is cached, by the key's hash (revocation deletes exactly this). */
export const principalCacheKey = (hash: string) => `principal:key:${hash}`;

/** A new random key: 32 bytes of entropy, URL-safe, recognisable by its prefix. */
export const generateKeyValue = () => `pyl_${randomBytes(32).toString('base64url')}`;

export interface CreateApiKeyInput {
  accountId: string;
  userId: string;
  name: string;
  /** Use this exact value (bootstrap key); otherwise a random one is generated. */
  value?: string;
  expiresAt?: string | null;
}

/**
 * Creates a key for a user of the account. The plain value is returned once and never stored.
 * `actor` (absent for the admin CLI and the demo seed) may not create keys for owners unless an owner.
 */
export async function createApiKey(
  repo: IdentityRepository,
  input: CreateApiKeyInput,
  actor?: Pick<Principal, 'roles'>,
  now = Date.now(),
): Promise<{ key: ApiKey; value: string }> {
  const name = requiredText(input.name, 'name', 100);
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null && input.expiresAt !== '') {
    const at = parseInstant(input.expiresAt);
    if (!at) throw badInput('expiresAt', 'expiresAt must be an ISO 8601 date-time, e.g. 2030-01-31T00:00:00Z');
    if (at.getTime() <= now) throw badInput('expiresAt', 'expiresAt must be in the future');
    expiresAt = at.toISOString();
  }
  const user = await repo.findUser(input.accountId, optionalText(input.userId, 'userId', 100) ?? '');
  if (!user) throw new AppError('NOT_FOUND', `user '${input.userId}' was not found`, { field: 'userId' });
  assertMayManage(actor, user.roles, 'userId');
  const value = input.value ?? generateKeyValue();
  if (value.length < 16 || value.length > 256) throw badInput('value', 'an API key must be 16 to 256 characters');
  const key = await repo.addApiKey(input.accountId, {
    userId: user.id,
    name,
    hash: hashKey(value),
    prefix: value.slice(0, 8),
    expiresAt,
    revokedAt: null,
  });
  return { key, value };
}

/** Keys of the account (never their values), newest first; revoked ones only when asked; `where` / `order` as every list query. */
export function listApiKeys(
  repo: IdentityRepository,
  accountId: string,
  args: { userId?: string | null; includeRevoked?: boolean | null; where?: unknown; order?: unknown },
  now: () => number = Date.now,
): Promise<ApiKey[]> {
  return repo.listApiKeys(accountId, { ...args, nowIso: new Date(now()).toISOString() });
}

/**
 * Revokes a key of the account at once: marks it, forgets the cached principal here, and records
 * a revocation event so every other process (the admin CLI's server, other replicas, the
 * distributed gateway) forgets it too within a poll interval.
 */
export async function revokeApiKey(
  deps: { repo: IdentityRepository; cache: Cache; pushEvents?: PushEvents },
  accountId: string,
  id: string,
  actor?: Pick<Principal, 'roles'>,
): Promise<ApiKey> {
  const key = await deps.repo.findApiKey(accountId, id);
  if (!key) throw notFound('API key', id);
  const owner = await deps.repo.findUser(accountId, key.userId);
  assertMayManage(actor, owner?.roles ?? [], 'id');
  const revoked = key.revokedAt ? key : await deps.repo.revokeApiKey(accountId, id, new Date().toISOString());
  if (!revoked) throw notFound('API key', id);
  await forgetKey(deps, key.hash);
  if (!key.revokedAt) deps.pushEvents?.emit(accountId, 'api_key.revoked', { api_key_id: revoked.id, name: revoked.name });
  return revoked;
}

/** Makes every process forget a key's cached principal: this cache now, the others through the revocation events. */
async function forgetKey(deps: { repo: IdentityRepository; cache: Cache }, hash: string): Promise<void> {
  await deps.cache.del(principalCacheKey(hash)).catch(() => undefined);
  await recordRevocation(deps.repo, hash);
}

/**
 * Makes every process forget the cached principals of a user's keys (the user was disabled or their
 * roles changed), as a revocation does, without revoking the keys: the next request looks the user up again.
 */
export async function forgetUserKeys(deps: { repo: IdentityRepository; cache: Cache }, accountId: string, userId: string): Promise<void> {
  for (const key of await deps.repo.listApiKeys(accountId, { userId })) await forgetKey(deps, key.hash);
}

export interface AuthenticatorDeps {
  repo: IdentityRepository;
  cache: Cache;
  /** Seconds a resolved principal is cached; revocations take effect at once (see revokeApiKey). */
  cacheTtlSeconds: number;
  now?: () => number;
}

/**
 * Resolves an API key to the principal it acts for. Keys are looked up by their SHA-256, so
 * the comparison never touches the secret byte by byte. Refuses revoked and expired keys, disabled
 * users and users without the API role.
 */
export class ApiKeyAuthenticator {
  private readonly cache: Pick<Cache, 'get' | 'set' | 'del'>;

  constructor(private readonly deps: AuthenticatorDeps) {
    this.cache = guardedCache(deps.cache);
  }

  async authenticate(presented: string): Promise<Principal | null> {
    if (!presented || presented.length > 256) return null;
    const hash = hashKey(presented);
    const cacheKey = principalCacheKey(hash);
    const cached = await this.cache.get<Principal & { exp: number | null }>(cacheKey);
    const now = (this.deps.now ?? Date.now)();
    if (cached && (cached.exp === null || cached.exp > now)) {
      const { exp: _exp, ...principal } = cached;
      return principal;
    }
    const key = await this.deps.repo.apiKeyByHash(hash);
    if (!key || key.revokedAt) return null;
    const exp = key.expiresAt ? Date.parse(key.expiresAt) : null;
    if (exp !== null && exp <= now) return null;
    const user = await this.deps.repo.findUser(key.accountId, key.userId);
    if (!user || user.disabled || !user.roles.includes(API_ROLE)) return null;
    const principal: Principal = {
      accountId: key.accountId,
      userId: user.id,
      userName: user.username,
      roles: user.roles,
      policies: policiesFor(user.roles),
      isOwner: user.roles.includes('Owner'),
      via: 'api-key',
      credential: { kind: 'api-key', id: key.id },
    };
    await this.cache.set(cacheKey, { ...principal, exp }, this.deps.cacheTtlSeconds);
    void touchUser(this.deps.repo, user, now);
    return principal;
  }
}
