/**
 * Analytics migrations, once per deployment. ClickHouse has no transactional DDL and no locks, so
 * replicas starting together would run the same numbered file concurrently (a rollup backfill
 * twice). `runAnalyticsMigrations` takes a lease in the documents store first: one document with a
 * fixed id, inserted by the holder (DUPLICATE_KEY for everyone else, who wait and re-check), taken
 * over when its holder died and the lease expired, deleted when done. createBackends calls it (the
 * migrations job, or a process with MIGRATE_AT_START); with no documents store it runs unlocked.
 */
import { hostname } from 'node:os';
import { isAppError, type AnalyticsStore, type Collection, type DocumentStore, type Logger } from '@pylon/kit';

interface Lease {
  holder: string;
  expiresAt: number;
}

const LOCK_TENANT = '_system';
const LOCK_ID = 'analytics-migrations';

export interface MigrationOptions {
  analytics: Pick<AnalyticsStore, 'migrate'>;
  /** Where the lease lives; absent: no lock (a single process). */
  documents?: DocumentStore;
  logger?: Logger;
  /** How long a lease holds without its holder finishing (default 10 minutes). */
  leaseMs?: number;
  /** How long to wait for another holder (default 15 minutes). */
  waitMs?: number;
  /** Poll interval while another holder migrates (default 1 s). */
  pollMs?: number;
  now?: () => number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Applies pending analytics migrations under the lease; returns the names this call applied. */
export async function runAnalyticsMigrations(opts: MigrationOptions): Promise<string[]> {
  if (!opts.documents) return opts.analytics.migrate();
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
  try {
    return await opts.analytics.migrate();
  } finally {
    await locks.delete(LOCK_TENANT, LOCK_ID).catch((e) => opts.logger?.warn({ err: e }, 'could not release the analytics migration lease'));
  }
}
