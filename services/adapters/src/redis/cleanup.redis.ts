/**
 * Removes every key under a prefix (SCAN + UNLINK, never KEYS): what a self-check or a test run
 * wrote to a shared Redis (its streams with their consumer groups, cache and rate-limit keys).
 */
import { Redis } from 'ioredis';

/** Answers how many keys were removed. The prefix must be non-empty: an empty one would match the whole database. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  if (!prefix) throw new Error('deleteRedisKeys: an empty prefix would match every key');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  await redis.connect();
  try {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    let removed = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length) removed += await redis.unlink(...keys);
    } while (cursor !== '0');
    return removed;
  } finally {
    redis.disconnect();
  }
}
