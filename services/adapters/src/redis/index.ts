/** `@pylon/adapters/redis`: Cache, PubSub, RateLimiter and EventStream (Redis Streams) on Redis (ioredis); one driver, one entry. */
export * from './cache.redis.js';
export * from './rate-limit.redis.js';
export * from './stream.redis.js';
export * from './cleanup.redis.js';
