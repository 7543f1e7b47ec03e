/**
 * Analytics migrations, once per deployment. ClickHouse has no transactional DDL and no locks, so
 * replicas starting together would run the same numbered file concurrently (a rollup backfill
 * twice). `runAnalyticsMigrations` takes a lease in the documents store first: one document with a
 * fixed id, inserted by the holder (DUPLICATE_KEY for everyone else, who wait and re-check), renewed
 * by its holder every third of its length while the migrations run (so a long backfill keeps it),
 * taken over when its holder died and the lease expired, deleted when done. createBackends calls it (the
 * migrations job, or a process with MIGRATE_AT_START); with no documents store it runs unlocked.
 * After the numbered files it sets the raw tables' TTLs from the retention settings (kit's
 * analytics.retention.ts), under the same lease.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { envInt, isAppError, type AnalyticsStore, type Collection, type DocumentStore, type Logger } from '@pylon/kit';
import { applyRetention, MAX_RETENTION_DAYS, type RetentionDays } from '@pylon/kit/adapters/analytics.retention';

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

interface Lease {
  holder: string;
  expiresAt: number;
}

const LOCK_TENANT = '_system';
const LOCK_ID = 'analytics-migrations';

export interface MigrationOptions {
  analytics: Pick<AnalyticsStore, 'migrate' | 'query' | 'exec'>;
  /** The raw tables' TTLs to set after the migrations (absent: left as they are). */
  retention?: RetentionDays;
  /** Where the lease lives; absent: no lock (a single process). */
  documents?: DocumentStore;
  logger?: Logger;
  /** How long a lease holds without its holder renewing it (default 10 minutes); renewed every third of that. */
  leaseMs?: number;
  /** How long to wait for another holder (default 15 minutes). */
  waitMs?: number;
  /** Poll interval while another holder migrates (default 1 s). */
  pollMs?: number;
  now?: () => number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Applies pending analytics migrations, then the retention, under the lease; returns the names of the migrations this call applied. */
export async function runAnalyticsMigrations(opts: MigrationOptions): Promise<string[]> {
  if (!opts.documents) return migrateThenRetain(opts);
  const now = opts.now ?? Date.now;
  const leaseMs = opts.leaseMs ?? 600_000;
  const deadline = now() + (opts.waitMs ?? 900_000);
  const holder = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
  const locks: Collection<Lease> = opts.documents.collection<Lease>({ name: 'locks' });
  for (;;) {
    try {
      await locks.insert(LOCK_TENANT, { id: LOCK_ID, holder, expiresAt: now() + leaseMs });
      break;
    } catch (e) {
      if (!isAppError(e) || e.code !== 'DUPLICATE_KEY') throw e;
    }
    const current = await locks.findById(LOCK_TENANT, LOCK_ID);
    if (current && current.expiresAt <= now()) {
      // The holder died mid-migration: remove its lease (only that version of it) and try again.
      opts.logger?.warn({ holder: current.holder }, 'analytics migration lease expired; taking over');
      await locks.delete(LOCK_TENANT, LOCK_ID, { expectedVersion: current.version }).catch(() => false);
      continue;
    }
    if (now() > deadline) throw new Error('analytics migrations: gave up waiting for another process holding the migration lease');
    await sleep(opts.pollMs ?? 1000);
  }
  // Renewed while this holder migrates: only its own lease (a lease taken over is another holder's).
  let renewing: Promise<void> = Promise.resolve();
  const renew = setInterval(
    () => {
      renewing = (async () => {
        const current = await locks.findById(LOCK_TENANT, LOCK_ID);
        if (current?.holder !== holder) throw new Error("the lease is no longer this process's");
        await locks.update(LOCK_TENANT, LOCK_ID, { $set: { expiresAt: now() + leaseMs } }, { expectedVersion: current.version });
      })().catch((e: unknown) => opts.logger?.warn({ err: e }, 'could not renew the analytics migration lease'));
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  try {
    return await migrateThenRetain(opts);
  } finally {
    clearInterval(renew);
    await renewing; // a renewal in flight would change the version the release expects
    // Released only if still ours (a holder past its lease must not delete its successor's).
    const current = await locks.findById(LOCK_TENANT, LOCK_ID).catch(() => null);
    if (current?.holder === holder) {
      await locks
        .delete(LOCK_TENANT, LOCK_ID, { expectedVersion: current.version })
        .catch((e) => opts.logger?.warn({ err: e }, 'could not release the analytics migration lease'));
    }
  }
}

async function migrateThenRetain(opts: MigrationOptions): Promise<string[]> {
  const applied = await opts.analytics.migrate();
  if (opts.retention) {
    const changed = await applyRetention(opts.analytics, opts.retention);
    if (changed.length) opts.logger?.info({ changed }, 'analytics retention (TTL) changed');
  }
  return applied;
}
