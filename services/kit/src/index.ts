/**
 * Pylon kit: what every service shares, and the ports. Adapters (in @pylon/adapters) are imported only by composition roots,
 * as `@pylon/adapters/<backend>`. Building and serving a subgraph (Apollo's federation and server packages, about a second
 * of loading) is `@pylon/kit/serving`, imported by the subgraphs' app.ts and the processes, not by domain code.
 */
export * from './errors.js';
export * from './json-syntax.js';
export * from './json-object.js';
export * from './config.js';
export * from './validation.js';
export * from './logger.js';
export * from './auth/policies.js';
export * from './auth/principal.js';
export type * from './ports/documents.js';
export type * from './ports/analytics.js';
export type * from './ports/stream.js';
export { TransientError, isTransientError, LeaseLostError, isLeaseLost, HELD_BATCH } from './ports/stream.js';
export type * from './ports/cache.js';
export type * from './ports/blobs.js';
export type * from './ports/rate-limit.js';
export * from './graphql/filters.js';
export * from './graphql/json.scalar.js';
export * from './graphql/errors.js';
export * from './graphql/context.js';
export * from './graphql/loaders.js';
export * from './graphql/merge-resolvers.js';
export * from './auth/access.js';
export * from './auth/operation-rules.js';
export * from './time.js';
export * from './validity.js';
export * from './facade/gateway-client.js';
export * from './facade/persisted-manifest.js';
export * from './http/ops.js';
export * from './http/close-server.js';
export * from './http/live-stream-metrics.js';
export * from './http/cache-metrics.js';
export * from './process/force-exit.js';
export * from './process/start-retry.js';
export * from './groups.js';
export * from './group-rules.js';
export * from './group-tree.repository.js';
export * from './template-layout.js';
export * from './http/outbound-url.js';
export * from './http/query-subgraph.js';
export * from './telemetry.js';
export * from './change-events.js';
export * from './push-events.js';
export * from './http/audit.js';
export * from './http/rest-errors.js';
export * from './facade/case.js';
export * from './facade/paging.js';
export * from './facade/analytics-datasets.js';
export * from './facade/gateway-errors.js';
export * from './json-patch.js';
export * from './jobs/jobs.js';
export * from './jobs/jobs-http.js';
export * from './jobs/job-files.js';
export * from './jobs/file-job.js';
export * from './scratch.js';
