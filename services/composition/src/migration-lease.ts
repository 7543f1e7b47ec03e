/**
 * The analytics migrations' lease: one process migrates at a time, and a holder that lost its lease
 * (stalled past it, cut off from where it lives, taken over) stops before its next statement.
 *
 * Fencing: the holder renews every third of the lease and confirms it with the lock's store before
 * a statement once its last confirmation is older than that; it counts the lease lost when another
 * holder replaced it, or when it could not confirm it for two thirds of its length (a third is left
 * for clocks that differ between processes). ClickHouse has no conditional DDL, so a statement
 * already sent runs to its end; what the fence guarantees is that no further statement is sent.
 *
 * Two places for the lock:
 * - the documents store (one document with a fixed id; MongoDB when the processes share it);
 * - ClickHouse itself, for deployments whose migrating process has no shared documents store: one
 *   table per holding, `_pylon_migration_lease_<N>`, whose comment names the holder and expiry.
 *   `CREATE TABLE` without IF NOT EXISTS succeeds for one process only (TABLE_ALREADY_EXISTS for
 *   the others), so taking generation N+1 is a compare-and-set, and N is a fencing token that only
 *   grows. In a cluster the statements go ON CLUSTER (the distributed DDL queue orders them).
 */
import { hostname } from 'node:os';
import { isAppError, type AnalyticsStore, type Collection, type DocumentStore, type Logger } from '@pylon/kit';

/** Thrown (and stops the migrations) when this process no longer holds the lease. */
export class MigrationLeaseLostError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`analytics migrations stopped: the migration lease ${reason}`, options);
    this.name = 'MigrationLeaseLostError';
  }
}

export interface MigrationLease {
  /** This holding's fencing token: the lease table's generation in ClickHouse, the holder id in the documents store. */
  readonly token: string;
  /** Resolves while the lease is this process's (confirming and renewing it when due); rejects with MigrationLeaseLostError once it is not. */
  check(): Promise<void>;
  /** Stops renewing and gives the lease up if it is still this process's. */
  release(): Promise<void>;
}

export interface LeaseTiming {
  /** How long a lease holds without renewal (default 10 minutes). */
  leaseMs: number;
  /** How long to wait for another holder (default 15 minutes). */
  waitMs: number;
  /** Poll interval while another holder migrates (default 1 s). */
  pollMs: number;
  now: () => number;
  logger?: Logger | undefined;
}

/** One holding, as its lock's store sees it. */
interface Holding {
  token: string;
  /** Extends the lease to `expiresAt` when it is still this holding's: false when another holder has it; throws when the store cannot tell. */
  renew(expiresAt: number): Promise<boolean>;
  /** Gives the lease up (only this holding's). */
  release(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const newHolderId = () => `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;

/** The renewal timer and the check every statement passes. */
function fenced(holding: Holding, t: LeaseTiming): MigrationLease {
  const third = Math.max(1, Math.floor(t.leaseMs / 3));
  let confirmedAt = t.now();
  let lost: MigrationLeaseLostError | undefined;
  let renewing: Promise<void> | undefined;
  const renew = (): Promise<void> =>
    (renewing ??= (async () => {
      const at = t.now();
      try {
        if (await holding.renew(at + t.leaseMs)) confirmedAt = at;
        else lost ??= new MigrationLeaseLostError('was taken over by another process');
      } catch (e) {
        t.logger?.warn({ err: e }, 'could not renew the analytics migration lease');
        if (t.now() - confirmedAt >= 2 * third) lost ??= new MigrationLeaseLostError('could not be confirmed before it could expire', { cause: e });
      } finally {
        renewing = undefined;
      }
    })());
  const timer = setInterval(() => void renew(), third);
  timer.unref();
  return {
    token: holding.token,
    async check() {
      if (renewing) await renewing;
      if (!lost && t.now() - confirmedAt >= third) await renew();
      if (!lost && t.now() - confirmedAt >= 2 * third) lost = new MigrationLeaseLostError('could not be confirmed before it could expire');
      if (lost) throw lost;
    },
    async release() {
      clearInterval(timer);
      if (renewing) await renewing; // a renewal in flight would change what the release expects
      if (lost) return;
      await holding.release().catch((e: unknown) => t.logger?.warn({ err: e }, 'could not release the analytics migration lease'));
    },
  };
}

interface LeaseDoc {
  holder: string;
  expiresAt: number;
}

const LOCK_TENANT = '_system';
const LOCK_ID = 'analytics-migrations';

/** The lease as one document in the documents store: inserted by the holder, DUPLICATE_KEY for everyone else. */
export async function acquireDocumentsLease(documents: DocumentStore, t: LeaseTiming): Promise<MigrationLease> {
  const holder = newHolderId();
  const locks: Collection<LeaseDoc> = documents.collection<LeaseDoc>({ name: 'locks' });
  const deadline = t.now() + t.waitMs;
  for (;;) {
    try {
      await locks.insert(LOCK_TENANT, { id: LOCK_ID, holder, expiresAt: t.now() + t.leaseMs });
      break;
    } catch (e) {
      if (!isAppError(e) || e.code !== 'DUPLICATE_KEY') throw e;
    }
    const current = await locks.findById(LOCK_TENANT, LOCK_ID);
    if (current && current.expiresAt <= t.now()) {
      // The holder died mid-migration: remove its lease (only that version of it) and try again.
      t.logger?.warn({ holder: current.holder }, 'analytics migration lease expired; taking over');
      await locks.delete(LOCK_TENANT, LOCK_ID, { expectedVersion: current.version }).catch(() => false);
      continue;
    }
    if (t.now() > deadline) throw new Error('analytics migrations: gave up waiting for another process holding the migration lease');
    await sleep(t.pollMs);
  }
  return fenced(
    {
      token: holder,
      async renew(expiresAt) {
        const current = await locks.findById(LOCK_TENANT, LOCK_ID);
        if (current?.holder !== holder) return false;
        try {
          await locks.update(LOCK_TENANT, LOCK_ID, { $set: { expiresAt } }, { expectedVersion: current.version });
          return true;
        } catch (e) {
          // Changed between the read and the write: ours only if the holder is still this process.
          if (isAppError(e) && e.code === 'VERSION_CONFLICT') return (await locks.findById(LOCK_TENANT, LOCK_ID))?.holder === holder;
          throw e;
        }
      },
      async release() {
        // Released only if still ours (a holder past its lease must not delete its successor's).
        const current = await locks.findById(LOCK_TENANT, LOCK_ID);
        if (current?.holder === holder) await locks.delete(LOCK_TENANT, LOCK_ID, { expectedVersion: current.version });
      },
    },
    t,
  );
}

/** The lease tables' common prefix; the generation follows it. */
export const LEASE_TABLE_PREFIX = '_pylon_migration_lease_';
const TABLE_ALREADY_EXISTS = 57;

const leaseTable = (generation: number) => `${LEASE_TABLE_PREFIX}${generation}`;
const leaseComment = (lease: LeaseDoc) => JSON.stringify(lease).replace(/\\/g, '\\\\').replace(/'/g, "\\'");

function parseLease(comment: string): LeaseDoc | undefined {
  try {
    const v = JSON.parse(comment) as Partial<LeaseDoc>;
    return typeof v.holder === 'string' && typeof v.expiresAt === 'number' ? { holder: v.holder, expiresAt: v.expiresAt } : undefined;
  } catch {
    return undefined;
  }
}

export interface AnalyticsLeaseOptions {
  /** Renders a DDL statement for the deployment (ON CLUSTER in a cluster); identity on one node. */
  render?: (statement: string) => string;
}

/** The lease as tables in ClickHouse itself (see the file comment). */
export async function acquireAnalyticsLease(
  analytics: Pick<AnalyticsStore, 'query' | 'exec'>,
  t: LeaseTiming,
  o: AnalyticsLeaseOptions = {},
): Promise<MigrationLease> {
  const render = o.render ?? ((s: string) => s);
  const holder = newHolderId();
  const deadline = t.now() + t.waitMs;
  /** Every lease table of this database, highest generation first. */
  const generations = async () => {
    const rows = await analytics.query<{ name: string; comment: string }>(
      `SELECT name, comment FROM system.tables WHERE database = currentDatabase() AND startsWith(name, {prefix:String})`,
      { prefix: LEASE_TABLE_PREFIX },
    );
    return rows
      .map((r) => ({ generation: Number(r.name.slice(LEASE_TABLE_PREFIX.length)), lease: parseLease(r.comment) }))
      .filter((g) => Number.isSafeInteger(g.generation))
      .sort((a, b) => b.generation - a.generation);
  };
  let generation: number;
  for (;;) {
    const top = (await generations())[0];
    // No lease table, a released or expired lease, or a comment that does not parse: take the next generation.
    if (!top?.lease || top.lease.expiresAt <= t.now()) {
      if (top?.lease && top.lease.expiresAt > 0) t.logger?.warn({ holder: top.lease.holder }, 'analytics migration lease expired; taking over');
      const next = (top?.generation ?? 0) + 1;
      try {
        await analytics.exec(
          render(`CREATE TABLE ${leaseTable(next)} (generation UInt64) ENGINE = Memory COMMENT '${leaseComment({ holder, expiresAt: t.now() + t.leaseMs })}'`),
        );
        generation = next;
        break;
      } catch (e) {
        // Another process created this generation first: it holds the lease now.
        if (!(isAppError(e) && e.details.engineCode === TABLE_ALREADY_EXISTS)) throw e;
      }
    }
    if (t.now() > deadline) throw new Error('analytics migrations: gave up waiting for another process holding the migration lease');
    await sleep(t.pollMs);
  }
  const mine = leaseTable(generation);
  // Earlier generations are over (released, expired, or beaten to this one).
  for (const g of await generations()) {
    if (g.generation < generation) await analytics.exec(render(`DROP TABLE IF EXISTS ${leaseTable(g.generation)}`));
  }
  const setLease = (lease: LeaseDoc) => analytics.exec(render(`ALTER TABLE ${mine} MODIFY COMMENT '${leaseComment(lease)}'`));
  return fenced(
    {
      token: String(generation),
      async renew(expiresAt) {
        const top = (await generations())[0];
        if (top?.generation !== generation || top.lease?.holder !== holder) return false;
        await setLease({ holder, expiresAt });
        return true;
      },
      async release() {
        // The table stays (released: expiry 0), so the next holder's generation is higher still.
        const top = (await generations())[0];
        if (top?.generation === generation && top.lease?.holder === holder) await setLease({ holder, expiresAt: 0 });
      },
    },
    t,
  );
}
