/** `@pylon/adapters/redis`: Cache, PubSub and RateLimiter on Redis (ioredis); one driver, one entry. */
export * from './cache.redis.js';
export * from './rate-limit.redis.js';
