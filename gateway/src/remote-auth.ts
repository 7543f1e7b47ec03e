import { createHash } from 'node:crypto';
import { INTERNAL_TOKEN_HEADER, type Cache, type InternalTokens, type Principal } from '@pylon/kit';
import type { EdgeAuthenticator } from './edge-auth.js';

const SYSTEM: Principal = { accountId: '-', userId: 'gateway', userName: 'gateway', roles: [], policies: [], isOwner: false, via: 'internal' };

/** Where the gateway caches the answer for an API key: by the key's SHA-256, as identity names revocations. */
export const edgeKeyCacheKey = (hash: string) => `edge:key:${hash}`;

/**
 * Distributed mode: asks the identity service to resolve a key or a bearer token
 * (POST /internal/authenticate), caching answers briefly so the hot path rarely pays the hop.
 * Revoked keys are dropped from the cache when identity announces them (gateway.main.ts).
 */
export function remoteAuthenticator(o: {
  identityUrl: string;
  tokens: InternalTokens;
  cache: Cache;
  ttlSeconds: number;
  timeoutMs: number;
}): EdgeAuthenticator {
  const endpoint = new URL('/internal/authenticate', o.identityUrl).toString();
  return {
    async authenticate({ apiKey, bearer }) {
      const credential = apiKey ? { apiKey } : bearer ? { bearer } : null;
      if (!credential || (apiKey && apiKey.length > 256) || (bearer && bearer.length > 8192)) return null;
      const hash = createHash('sha256')
        .update(apiKey ?? bearer!)
        .digest('hex');
      const cacheKey = apiKey ? edgeKeyCacheKey(hash) : `edge:bearer:${hash}`;
      const cached = await o.cache.get<{ principal: Principal | null }>(cacheKey).catch(() => undefined);
      if (cached) return cached.principal;
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(SYSTEM) },
        body: JSON.stringify(credential),
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      if (!res.ok) throw new Error(`identity service answered ${res.status}`);
      const { principal } = (await res.json()) as { principal: Principal | null };
      await o.cache.set(cacheKey, { principal }, principal ? o.ttlSeconds : Math.min(5, o.ttlSeconds)).catch(() => undefined);
      return principal;
    },
  };
}
