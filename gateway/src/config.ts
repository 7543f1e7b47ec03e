/**
 * The gateway's settings: `edgeEnv` (what every gateway edge reads: the listener, GraphQL limits,
 * request limits, authentication caching) and the distributed gateway's process (`gatewayEnv`).
 * The all-in-one spreads `edgeEnv` into its own schema (launcher/src/all-in-one.config.ts).
 */
import { z } from 'zod';
import { envInt, envLogLevel, envPort, envTrustProxy, metricsEnv } from '@pylon/kit';
import { auditSinkEnv } from '@pylon/composition/audit-sink';
import { authEnv } from '@pylon/identity';

export const edgeEnv = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: envLogLevel(),
  HOST: z.string().min(1).default('127.0.0.1'),
  TRUST_PROXY: envTrustProxy(),
  PORT: envPort(4000),
  /** Who may read /metrics (kit metricsEnv): a separate internal port and/or a bearer token. */
  ...metricsEnv,
  /** Introspection and field suggestions; default on except in production. */
  GRAPHQL_INTROSPECTION: z.enum(['true', 'false']).optional(),
  GRAPHQL_MAX_DEPTH: envInt(8, 2, 50),
  GRAPHQL_MAX_COST: envInt(5000, 100, 1_000_000),
  GRAPHQL_MAX_ALIASES: envInt(15, 1, 1000),
  GRAPHQL_MAX_ROOT_FIELDS: envInt(10, 1, 100),
  /** Requests per API key (or per OAuth user) per window; 429 with Retry-After beyond. */
  RATE_LIMIT_POINTS: envInt(1200, 1, 1_000_000_000),
  RATE_LIMIT_DURATION_SECONDS: envInt(60, 1, 86400),
  /** New GraphQL documents (not in the plan cache) per key or user per window, beside the requests; 429 beyond. */
  RATE_LIMIT_PLAN_POINTS: envInt(300, 1, 1_000_000_000),
  /** Each of the gateway's caches (parsed documents, query plans, persisted queries): entries and estimated heap MiB. */
  GRAPHQL_CACHE_ENTRIES: envInt(500, 10, 1_000_000),
  GRAPHQL_CACHE_MIB: envInt(32, 1, 4096),
  /** Principal cache and failed-authentication limits, declared in services/identity/src/config.ts. */
  ...authEnv,
};

export const introspectionEnabled = (env: { NODE_ENV: string; GRAPHQL_INTROSPECTION?: 'true' | 'false' | undefined }) =>
  env.GRAPHQL_INTROSPECTION ? env.GRAPHQL_INTROSPECTION === 'true' : env.NODE_ENV !== 'production';

export const limitsFrom = (env: {
  GRAPHQL_MAX_DEPTH: number;
  GRAPHQL_MAX_COST: number;
  GRAPHQL_MAX_ALIASES: number;
  GRAPHQL_MAX_ROOT_FIELDS: number;
  GRAPHQL_CACHE_ENTRIES: number;
  GRAPHQL_CACHE_MIB: number;
}) => ({
  maxDepth: env.GRAPHQL_MAX_DEPTH,
  maxCost: env.GRAPHQL_MAX_COST,
  maxAliases: env.GRAPHQL_MAX_ALIASES,
  maxDirectives: 10,
  maxTokens: 2000,
  maxRootFields: env.GRAPHQL_MAX_ROOT_FIELDS,
  maxFieldDuplicates: 3,
  cache: { maxEntries: env.GRAPHQL_CACHE_ENTRIES, maxBytes: env.GRAPHQL_CACHE_MIB * 2 ** 20 },
});

/** The gateway alone (distributed mode): subgraph URLs come from the env. */
export const gatewayEnv = z.object({
  ...edgeEnv,
  HOST: z.string().min(1).default('0.0.0.0'),
  SIGNAGE_INTERNAL_SECRET: z.string().min(32),
  SUBGRAPH_TIMEOUT_MS: envInt(5000, 100, 60000),
  IDENTITY_URL: z.string().url(),
  DEVICES_URL: z.string().url(),
  CONTENT_URL: z.string().url(),
  SCHEDULING_URL: z.string().url(),
  DATATABLES_URL: z.string().url(),
  ANALYTICS_URL: z.string().url(),
  /**
   * /mcp's protected-resource metadata: the identity process's OAUTH_ISSUER and OAUTH_AUDIENCE (set
   * them alike on both). Unset issuer: read from IDENTITY_URL's OpenID discovery; unset audience: the issuer.
   */
  OAUTH_ISSUER: z.string().url().optional(),
  OAUTH_AUDIENCE: z.string().url().optional(),
  ...auditSinkEnv, // REDIS_URL among them (rate limits; the audit stream with STREAM_DRIVER=redis)
});
export type GatewayEnv = z.infer<typeof gatewayEnv>;

/**
 * Unless told not to, @apollo/gateway 2.14 reports usage metrics to Apollo's servers (OTLP to
 * usage-reporting.api.apollographql.com) and probes the cloud metadata endpoints (GCP, AWS, Azure,
 * Alibaba) when it is built (its dist/index.js and dist/utilities/opentelemetry.js read
 * APOLLO_TELEMETRY_DISABLED). A self-hosted service calls nothing it was not configured to call:
 * createGateway calls this before it builds the gateway.
 */
export function disableApolloTelemetry(): void {
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
}
