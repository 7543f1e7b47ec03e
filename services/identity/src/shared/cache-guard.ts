import type { Cache } from '@pylon/kit';

/**
 * The principal cache is an optimisation: when it fails (Redis down), authentication goes to the
 * store. After a failure the cache is skipped for `cooldownMs`, so an outage costs one slow
 * request per cooldown instead of a timeout on every request.
 */
export function guardedCache(cache: Cache, cooldownMs = 5_000, now: () => number = Date.now): Pick<Cache, 'get' | 'set' | 'del'> {
  let downUntil = 0;
  const run = async <T>(op: () => Promise<T>, fallback: T): Promise<T> => {
    if (now() < downUntil) return fallback;
    try {
      return await op();
    } catch {
      downUntil = now() + cooldownMs;
      return fallback;
    }
  };
  return {
    get: <T>(key: string) => run(() => cache.get<T>(key), undefined),
    set: (key, value, ttl) => run(() => cache.set(key, value, ttl), undefined),
    // Deletions (revocations) always try: a skipped delete could leave a revoked key cached.
    del: (key) => cache.del(key).catch(() => undefined),
  };
}
