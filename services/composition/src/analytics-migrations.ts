/**
 * Analytics migrations, once per deployment. ClickHouse has no transactional DDL and no locks, so
 * replicas starting together would run the same numbered file concurrently (a rollup backfill
 * twice). `runAnalyticsMigrations` takes a fenced lease first (migration-lease.ts): in the shared
 * documents store, or in the ClickHouse server itself when the migrating process has none; renewed
 * every third of its length while the migrations run (so a long backfill keeps it), taken over when
 * its holder died and the lease expired, and checked before every statement, so a holder that lost
 * it stops there. createBackends calls it (the migrations job, or a process with MIGRATE_AT_START).
 * After the numbered files it sets the raw tables' TTLs from the retention settings (kit's
 * analytics.retention.ts), under the same lease.
 */
import { z } from 'zod';
import { envInt, type AnalyticsStore, type DocumentStore, type Logger } from '@pylon/kit';
import { applyRetention, MAX_RETENTION_DAYS, type RetentionDays } from '@pylon/adapters/analytics';
import { acquireAnalyticsLease, acquireDocumentsLease, type LeaseTiming } from './migration-lease.js';

const days = () => z.coerce.number().int().min(0).max(MAX_RETENTION_DAYS).optional();

/** Retention settings (part of every process's backend settings; used where the migrations run). */
export const analyticsRetentionEnv = {
  /** Days the raw analytics tables keep their rows (ClickHouse TTL); 0 = forever. The rollups keep everything. */
  ANALYTICS_RAW_TTL_DAYS: envInt(0, 0, MAX_RETENTION_DAYS),
  /** Per-family overrides of ANALYTICS_RAW_TTL_DAYS (unset: that value): play_logs, ping_logs, event_logs, impressions, audit_events. */
  ANALYTICS_PLAY_TTL_DAYS: days(),
  ANALYTICS_PING_TTL_DAYS: days(),
  ANALYTICS_EVENT_TTL_DAYS: days(),
  ANALYTICS_IMPRESSION_TTL_DAYS: days(),
  ANALYTICS_AUDIT_TTL_DAYS: days(),
};
type RetentionEnv = { ANALYTICS_RAW_TTL_DAYS: number } & Partial<Record<Exclude<keyof typeof analyticsRetentionEnv, 'ANALYTICS_RAW_TTL_DAYS'>, number>>;

/** Each raw table family's retention from the settings. */
export function retentionFromEnv(env: RetentionEnv): Required<RetentionDays> {
  const raw = env.ANALYTICS_RAW_TTL_DAYS;
  return {
    play: env.ANALYTICS_PLAY_TTL_DAYS ?? raw,
    ping: env.ANALYTICS_PING_TTL_DAYS ?? raw,
    event: env.ANALYTICS_EVENT_TTL_DAYS ?? raw,
    impression: env.ANALYTICS_IMPRESSION_TTL_DAYS ?? raw,
    audit: env.ANALYTICS_AUDIT_TTL_DAYS ?? raw,
  };
}

export interface MigrationOptions {
  analytics: Pick<AnalyticsStore, 'migrate' | 'query' | 'exec'>;
  /** The raw tables' TTLs to set after the migrations (absent: left as they are). */
  retention?: RetentionDays;
  /**
   * Where the lease lives. `documents`: a documents store the migrating processes share (MongoDB).
   * `analytics`: tables in the ClickHouse server being migrated (migration-lease.ts). Absent: no
   * lock, for a store only this process opens (embedded chDB).
   */
  lock?: { documents: DocumentStore } | { analytics: true };
  /** Renders the lease's and the retention's DDL for the deployment (ON CLUSTER in a cluster); identity on one node. */
  render?: (statement: string) => string;
  logger?: Logger;
  /** How long a lease holds without its holder renewing it (default 10 minutes); renewed every third of that. */
  leaseMs?: number;
  /** How long to wait for another holder (default 15 minutes). */
  waitMs?: number;
  /** Poll interval while another holder migrates (default 1 s). */
  pollMs?: number;
  now?: () => number;
}

/** Applies pending analytics migrations, then the retention, under the lease; returns the names of the migrations this call applied. */
export async function runAnalyticsMigrations(opts: MigrationOptions): Promise<string[]> {
  if (!opts.lock) return migrateThenRetain(opts);
  const timing: LeaseTiming = {
    leaseMs: opts.leaseMs ?? 600_000,
    waitMs: opts.waitMs ?? 900_000,
    pollMs: opts.pollMs ?? 1000,
    now: opts.now ?? Date.now,
    logger: opts.logger,
  };
  const lease =
    'documents' in opts.lock
      ? await acquireDocumentsLease(opts.lock.documents, timing)
      : await acquireAnalyticsLease(opts.analytics, timing, opts.render ? { render: opts.render } : {});
  opts.logger?.info({ token: lease.token }, 'analytics migration lease taken');
  try {
    return await migrateThenRetain(opts, () => lease.check());
  } finally {
    await lease.release();
  }
}

async function migrateThenRetain(opts: MigrationOptions, beforeStatement?: () => Promise<void>): Promise<string[]> {
  const applied = await opts.analytics.migrate(beforeStatement ? { beforeStatement } : {});
  if (opts.retention) {
    const render = opts.render ?? ((s: string) => s);
    const target: Pick<AnalyticsStore, 'query' | 'exec'> = {
      query: (sql, params) => opts.analytics.query(sql, params),
      async exec(sql, params) {
        await beforeStatement?.();
        await opts.analytics.exec(render(sql), params);
      },
    };
    const changed = await applyRetention(target, opts.retention);
    if (changed.length) opts.logger?.info({ changed }, 'analytics retention (TTL) changed');
  }
  return applied;
}
