/** `@pylon/adapters/memory`: Cache, PubSub, Leases, RateLimiter and EventStream in process, for one replica (no driver). */
export * from './cache.memory.js';
export * from './rate-limit.memory.js';
export * from './stream.memory.js';
