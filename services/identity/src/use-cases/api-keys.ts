import { createHash, randomBytes } from 'node:crypto';
import { AppError, type Cache, type Principal } from '@pylon/kit';
import { API_ROLE, policiesFor } from '../domain/roles.js';
import type { ApiKey, IdentityRepository } from '../identity.repository.js';

export const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

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

/** Creates a key for a user. The plain value is returned once and never stored. */
export async function createApiKey(repo: IdentityRepository, input: CreateApiKeyInput): Promise<{ key: ApiKey; value: string }> {
  await repo.getUser(input.accountId, input.userId);
  const value = input.value ?? generateKeyValue();
  if (value.length < 16 || value.length > 256) throw new AppError('BAD_USER_INPUT', 'an API key must be 16 to 256 characters', { field: 'value' });
  const key = await repo.apiKeys.insert(input.accountId, {
    userId: input.userId,
    name: input.name,
    hash: hashKey(value),
    prefix: value.slice(0, 8),
    expiresAt: input.expiresAt ?? null,
    revokedAt: null,
  });
  return { key, value };
}

export interface AuthenticatorDeps {
  repo: IdentityRepository;
  cache: Cache;
  /** Seconds a resolved principal is cached; revocations take effect within this window. */
  cacheTtlSeconds: number;
  now?: () => number;
}

/**
 * Resolves an API key to the principal it acts for. Keys are looked up by their SHA-256, so
 * the comparison never touches the secret byte by byte. Refuses revoked and expired keys and
 * users without the API role.
 */
export class ApiKeyAuthenticator {
  constructor(private readonly deps: AuthenticatorDeps) {}

  async authenticate(presented: string): Promise<Principal | null> {
    if (!presented || presented.length > 256) return null;
    const hash = hashKey(presented);
    const cacheKey = `principal:key:${hash}`;
    const cached = await this.deps.cache.get<Principal & { exp: number | null }>(cacheKey).catch(() => undefined);
    const now = (this.deps.now ?? Date.now)();
    if (cached && (cached.exp === null || cached.exp > now)) {
      const { exp: _exp, ...principal } = cached;
      return principal;
    }
    const key = await this.deps.repo.apiKeys.findByUnique('hash', [hash]);
    if (!key || key.revokedAt) return null;
    const exp = key.expiresAt ? Date.parse(key.expiresAt) : null;
    if (exp !== null && exp <= now) return null;
    const user = await this.deps.repo.users.findById(key.accountId, key.userId);
    if (!user || !user.roles.includes(API_ROLE)) return null;
    const principal: Principal = {
      accountId: key.accountId,
      userId: user.id,
      userName: user.username,
      roles: user.roles,
      policies: policiesFor(user.roles),
      isOwner: user.roles.includes('Owner'),
      via: 'api-key',
    };
    await this.deps.cache.set(cacheKey, { ...principal, exp }, this.deps.cacheTtlSeconds).catch(() => undefined);
    void this.touch(user.accountId, user.id, user.lastActivity, now);
    return principal;
  }

  /** lastActivity moves at most once a minute per user, off the request path. */
  private async touch(accountId: string, userId: string, last: string | null, now: number): Promise<void> {
    if (last && now - Date.parse(last) < 60_000) return;
    await this.deps.repo.users.update(accountId, userId, { $set: { lastActivity: new Date(now).toISOString() } }).catch(() => undefined);
  }
}

