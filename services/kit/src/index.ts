/** Pylon kit: what every service shares. Adapters are imported only by composition roots, as `@pylon/kit/adapters/<name>`. */
export * from './errors.js';
export * from './config.js';
export * from './logger.js';
export * from './auth/policies.js';
export * from './auth/principal.js';
export type * from './ports/documents.js';
export type * from './ports/analytics.js';
export type * from './ports/stream.js';
export type * from './ports/cache.js';
export type * from './ports/blobs.js';
export * from './graphql/filters.js';
export * from './graphql/errors.js';
export * from './graphql/subgraph.js';
export * from './time.js';
export * from './facade/gateway-client.js';
export * from './http/ops.js';
export * from './groups.js';
export * from './http/serve-subgraph.js';
