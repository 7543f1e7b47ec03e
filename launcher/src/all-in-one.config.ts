/**
 * The all-in-one process's settings (`npm start`): the gateway's edge settings plus every subgraph's
 * own fragment (declared in services/<name>/src/config.ts), the backends, the demo and its simulators.
 */
import { z } from 'zod';
import { envBool, envInt, envPort, jobFilesEnv, jobsEnv } from '@pylon/kit';
import { auditSinkEnv } from '@pylon/composition/audit-sink';
import { backendEnv, backendRules } from '@pylon/composition/backends';
import { devicesEnv } from '@pylon/devices/config';
import { contentEnv } from '@pylon/content/config';
import { schedulingEnv } from '@pylon/scheduling/config';
import { datatablesEnv } from '@pylon/datatables/config';
import { reportsEnv } from '@pylon/analytics/config';
import { oauthEnv } from '@pylon/identity/config';
import { webhookDeliveryEnv } from '@pylon/identity/webhooks.config';
import { edgeEnv } from '@pylon/gateway/config';

/** The all-in-one process: gateway + six subgraphs in-process + REST facade + legacy adapter. */
export const allInOneEnv = backendEnv
  .extend({
    ...edgeEnv,
    LEGACY_PORT: envPort(4080),
    SIGNAGE_BOOTSTRAP_API_KEY: z.string().min(16).max(256).optional(),
    /** Shared secret for internal principal tokens; random per start when unset (single process). */
    SIGNAGE_INTERNAL_SECRET: z.string().min(32).optional(),
    SIGNAGE_DEMO: envBool(true),
    /** Subgraph documents compiled to JavaScript (graphql-jit; kit compiled-execution.ts); false: graphql-js answers every one. */
    GRAPHQL_COMPILED: envBool(true),
    /**
     * `npm start`: the log file (LOG_LEVEL and above, request lines included; default
     * SIGNAGE_DATA_DIR/pylon.log); the console then shows warnings and errors only. Empty: every
     * line on the console, as the other processes log.
     */
    LOG_FILE: z.string().max(4096).optional(),
    /** Record reads in the audit trail (declared with the audit sink settings). */
    AUDIT_READS: auditSinkEnv.AUDIT_READS,
    /** The demo owner's sign-in password (OAuth login page); random and printed at first start when unset. */
    SIGNAGE_DEMO_PASSWORD: z.string().min(10).max(200).optional(),
    /** The OAuth server (served by the identity service), declared in services/identity/src/config.ts. */
    ...oauthEnv,
    /** The devices subgraph's settings, declared in services/devices/src/config.ts. */
    ...devicesEnv,
    /** CAP alert feeds' allow-list, declared in services/scheduling/src/config.ts. */
    ...schedulingEnv,
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
    /** Hours between compactions of the raw analytics tables' closed months (services/analytics/src/workers/compaction.ts); 0: never. */
    ANALYTICS_COMPACT_HOURS: envInt(6, 0, 720),
    /** The browser docs (/docs, /graphiql); default on except in production. */
    DOCS_ENABLED: z.enum(['true', 'false']).optional(),
  })
  .check(...backendRules);

export type AllInOneEnv = z.infer<typeof allInOneEnv>;

export const docsEnabled = (env: { NODE_ENV: string; DOCS_ENABLED?: 'true' | 'false' | undefined }) =>
  env.DOCS_ENABLED ? env.DOCS_ENABLED === 'true' : env.NODE_ENV !== 'production';
