import { createHash } from 'node:crypto';
import { INTERNAL_TOKEN_HEADER, type Cache, type InternalTokens, type Principal } from '@pylon/kit';
import type { EdgeAuthenticator } from './edge-auth.js';

const SYSTEM: Principal = { accountId: '-', userId: 'gateway', userName: 'gateway', roles: [], policies: [], isOwner: false, via: 'internal' };

/**
 * Distributed mode: asks the identity service to resolve a key (POST /internal/authenticate),
 * caching answers briefly so the hot path rarely pays the hop.
 */
export function remoteAuthenticator(o: { identityUrl: string; tokens: InternalTokens; cache: Cache; ttlSeconds: number; timeoutMs: number }): EdgeAuthenticator {
  const endpoint = new URL('/internal/authenticate', o.identityUrl).toString();
  return {
    async authenticate({ apiKey }) {
      if (!apiKey || apiKey.length > 256) return null;
      const cacheKey = `edge:key:${createHash('sha256').update(apiKey).digest('hex')}`;
      const cached = await o.cache.get<{ principal: Principal | null }>(cacheKey);
      if (cached) return cached.principal;
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(SYSTEM) },
        body: JSON.stringify({ apiKey }),
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      if (!res.ok) throw new Error(`identity service answered ${res.status}`);
      const { principal } = (await res.json()) as { principal: Principal | null };
      await o.cache.set(cacheKey, { principal }, principal ? o.ttlSeconds : Math.min(5, o.ttlSeconds));
      return principal;
    },
  };
}
