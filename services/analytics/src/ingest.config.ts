/**
 * Settings of the telemetry consumer (the "telemetry-consumer" role, ingest.main.ts): one zod schema,
 * read by its entry and by the deployment checks (launcher/src/role-configs.ts).
 */
import { envBool, envInt, serverEnv } from '@pylon/kit';
import { backendEnv, backendRules } from '@pylon/composition/backends';

export const ingestEnv = backendEnv
  .extend({
    ...serverEnv(4010),
    /** Messages per insert at most, and the longest a partial batch waits. */
    INGEST_MAX_BATCH: envInt(5000, 1, 100_000),
    INGEST_MAX_WAIT_MS: envInt(500, 0, 60_000),
    /** Refused inserts (store up) before a batch's messages go one by one to the dead letter. */
    INGEST_MAX_ATTEMPTS: envInt(5, 1, 1000),
    INGEST_REPLAY_DEAD_LETTERS: envBool(false),
    /** Hours between compactions of the raw tables' closed months (workers/compaction.ts); 0: never. */
    ANALYTICS_COMPACT_HOURS: envInt(6, 0, 720),
  })
  .check(...backendRules);
