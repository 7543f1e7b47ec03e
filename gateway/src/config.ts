import { z } from 'zod';
import { envBool, envInt, envLogLevel, envPort, envTrustProxy, jobFilesEnv, jobsEnv, metricsEnv } from '@pylon/kit';
import { auditSinkEnv } from '@pylon/composition/audit-sink';
import { backendEnv, backendRules } from '@pylon/composition/backends';
import { devicesEnv } from '@pylon/devices/config';
import { contentEnv } from '@pylon/content/config';
import { datatablesEnv } from '@pylon/datatables/config';
import { reportsEnv } from '@pylon/analytics/config';
import { authEnv, oauthEnv } from '@pylon/identity/config';
import { webhookDeliveryEnv } from '@pylon/identity/webhooks.config';

const common = {
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
  /** Principal cache and failed-authentication limits, declared in services/identity/src/config.ts. */
  ...authEnv,
};

/** The all-in-one process: gateway + six subgraphs in-process + REST facade + legacy adapter. */
export const allInOneEnv = backendEnv
  .extend({
    ...common,
    LEGACY_PORT: envPort(4080),
    SIGNAGE_BOOTSTRAP_API_KEY: z.string().min(16).max(256).optional(),
    /** Shared secret for internal principal tokens; random per start when unset (single process). */
    SIGNAGE_INTERNAL_SECRET: z.string().min(32).optional(),
    SIGNAGE_DEMO: envBool(true),
    /** Record reads in the audit trail (declared with the audit sink settings). */
    AUDIT_READS: auditSinkEnv.AUDIT_READS,
    /** The demo owner's sign-in password (OAuth login page); random and printed at first start when unset. */
    SIGNAGE_DEMO_PASSWORD: z.string().min(10).max(200).optional(),
    /** The OAuth server (served by the identity service), declared in services/identity/src/config.ts. */
    ...oauthEnv,
    /** The devices subgraph's settings, declared in services/devices/src/config.ts. */
    ...devicesEnv,
    /** Media upload, import and file-address settings, declared in services/content/src/config.ts. */
    ...contentEnv,
    /** Import job threshold and rows per table, declared in services/datatables/src/config.ts. */
    ...datatablesEnv,
    /** Report job threshold, declared in services/analytics/src/config.ts. */
    ...reportsEnv,
    /** Jobs per account and workers, declared in services/kit/src/jobs/jobs.ts. */
    ...jobsEnv,
    /** Result file retention and link lifetime, declared in services/kit/src/jobs/job-files.ts. */
    ...jobFilesEnv,
    /** Webhook delivery (allow-list, timeouts, retries), declared in services/identity/src/webhooks.config.ts. */
    ...webhookDeliveryEnv,
    /** The demo account's devices ping through a built-in simulator (only with SIGNAGE_DEMO). */
    SIGNAGE_SIMULATOR: envBool(true),
    SIGNAGE_SIMULATOR_SECONDS: envInt(15, 1, 3600),
    /** Days of play, event and impression history the demo's simulated screens send at first start (0: none). */
    SIGNAGE_SIMULATOR_HISTORY_DAYS: envInt(3, 0, 89),
    /** At start, send every dead letter not replayed yet back to its original topic, once (README "Telemetry pipeline"). */
    INGEST_REPLAY_DEAD_LETTERS: envBool(false),
    /** Hours between compactions of the raw analytics tables' closed months (services/analytics/src/ingest/compaction.ts); 0: never. */
    ANALYTICS_COMPACT_HOURS: envInt(6, 0, 720),
    /** The browser docs (/docs, /graphiql); default on except in production. */
    DOCS_ENABLED: z.enum(['true', 'false']).optional(),
  })
  .check(...backendRules);

export type AllInOneEnv = z.infer<typeof allInOneEnv>;

export const introspectionEnabled = (env: { NODE_ENV: string; GRAPHQL_INTROSPECTION?: 'true' | 'false' | undefined }) =>
  env.GRAPHQL_INTROSPECTION ? env.GRAPHQL_INTROSPECTION === 'true' : env.NODE_ENV !== 'production';

export const docsEnabled = (env: { NODE_ENV: string; DOCS_ENABLED?: 'true' | 'false' | undefined }) =>
  env.DOCS_ENABLED ? env.DOCS_ENABLED === 'true' : env.NODE_ENV !== 'production';

export const limitsFrom = (env: { GRAPHQL_MAX_DEPTH: number; GRAPHQL_MAX_COST: number; GRAPHQL_MAX_ALIASES: number; GRAPHQL_MAX_ROOT_FIELDS: number }) => ({
  maxDepth: env.GRAPHQL_MAX_DEPTH,
  maxCost: env.GRAPHQL_MAX_COST,
  maxAliases: env.GRAPHQL_MAX_ALIASES,
  maxDirectives: 10,
  maxTokens: 2000,
  maxRootFields: env.GRAPHQL_MAX_ROOT_FIELDS,
  maxFieldDuplicates: 3,
});

/** The gateway alone (distributed mode): subgraph URLs come from the env. */
export const gatewayEnv = z.object({
  ...common,
  HOST: z.string().min(1).default('0.0.0.0'),
  SIGNAGE_INTERNAL_SECRET: z.string().min(32),
  SUBGRAPH_TIMEOUT_MS: envInt(5000, 100, 60000),
  IDENTITY_URL: z.string().url(),
  DEVICES_URL: z.string().url(),
  CONTENT_URL: z.string().url(),
  SCHEDULING_URL: z.string().url(),
  DATATABLES_URL: z.string().url(),
  ANALYTICS_URL: z.string().url(),
  REDIS_URL: z.string().url().optional(),
  ...auditSinkEnv,
});
export type GatewayEnv = z.infer<typeof gatewayEnv>;
