/**
 * The fenced migration lease: a holder that lost its lease stops before its next statement, and a
 * process without a shared documents store still takes a lock, in the analytics server itself
 * (here chDB, the same engine: `CREATE TABLE` of a taken generation fails there as on a server).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalyticsStore, DocumentStore, MigrateOptions } from '@pylon/kit';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import { runAnalyticsMigrations } from '../src/analytics-migrations.js';
import { LEASE_TABLE_PREFIX, MigrationLeaseLostError } from '../src/migration-lease.js';

let dir: string;
let documents: DocumentStore;
let chdb: AnalyticsStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-migration-lease-'));
  documents = await createLmdbDocumentStore({ path: join(dir, 'documents') });
  chdb = await createChdbAnalyticsStore({ path: join(dir, 'analytics') });
});
beforeEach(async () => {
  await documents.collection({ name: 'locks' }).delete('_system', 'analytics-migrations');
});
afterAll(async () => {
  await chdb?.close();
  await documents?.close();
  await rm(dir, { recursive: true, force: true });
});

const leaseTables = async () =>
  (
    await chdb.query<{ name: string; comment: string }>(
      `SELECT name, comment FROM system.tables WHERE database = currentDatabase() AND startsWith(name, '${LEASE_TABLE_PREFIX}') ORDER BY name`,
    )
  ).map((r) => ({ generation: Number(r.name.slice(LEASE_TABLE_PREFIX.length)), lease: JSON.parse(r.comment) as { holder: string; expiresAt: number } }));

/** A store whose migrate() runs `statements` one by one through the runner's hook, like kit's runner. */
function scripted(statements: string[], during?: (statement: string) => Promise<void>) {
  const ran: string[] = [];
  return {
    ran,
    analytics: {
      query: chdb.query.bind(chdb),
      exec: chdb.exec.bind(chdb),
      async migrate(o?: MigrateOptions) {
        for (const s of statements) {
          await o?.beforeStatement?.();
          ran.push(s);
          await during?.(s);
        }
        return ['x'];
      },
    },
  };
}

test('documents lease: a holder whose lease was taken over stops before its next statement', async () => {
  const locks = documents.collection<{ holder: string; expiresAt: number }>({ name: 'locks' });
  let now = Date.now();
  const { ran, analytics } = scripted(['create', 'backfill', 'record'], async (s) => {
    if (s !== 'create') return;
    // This holder stalls past its lease; another process takes the lease over.
    now += 700;
    await locks.delete('_system', 'analytics-migrations');
    await locks.insert('_system', { id: 'analytics-migrations', holder: 'successor', expiresAt: now + 60_000 });
  });
  await expect(runAnalyticsMigrations({ analytics, lock: { documents }, leaseMs: 1000, pollMs: 10, now: () => now })).rejects.toThrow(MigrationLeaseLostError);
  expect(ran).toEqual(['create']);
  expect((await locks.findById('_system', 'analytics-migrations'))?.holder).toBe('successor');
});

test('documents lease: a holder that cannot confirm its lease for two thirds of it stops', async () => {
  let now = Date.now();
  const broken = {
    collection: (o: { name: string }) => {
      const c = documents.collection<{ holder: string; expiresAt: number }>(o);
      return { ...c, insert: c.insert.bind(c), findById: async () => Promise.reject(new Error('the document store is unavailable')) };
    },
  } as unknown as DocumentStore;
  const { ran, analytics } = scripted(['create', 'backfill'], async () => {
    now += 700; // past two thirds of a 1 s lease, never confirmed
  });
  await expect(runAnalyticsMigrations({ analytics, lock: { documents: broken }, leaseMs: 1000, pollMs: 10, now: () => now })).rejects.toThrow(
    /could not be confirmed/,
  );
  expect(ran).toEqual(['create']);
});

/** Counts how many migrate() calls overlap; the first applies '003_rollups', the later ones find nothing. */
function overlapProbe() {
  const probe = { running: 0, most: 0, applied: [] as string[] };
  const migrate = async (o?: MigrateOptions) => {
    await o?.beforeStatement?.();
    probe.most = Math.max(probe.most, ++probe.running);
    await new Promise((r) => setTimeout(r, 50));
    probe.running--;
    const done = probe.applied.length ? [] : ['003_rollups'];
    probe.applied.push(...done);
    return done;
  };
  return { probe, analytics: { query: chdb.query.bind(chdb), exec: chdb.exec.bind(chdb), migrate } };
}

test('no documents store: replicas starting together migrate one after the other, under a lock in the analytics server', async () => {
  const { probe, analytics } = overlapProbe();
  const before = (await leaseTables()).at(-1)?.generation ?? 0;
  const results = await Promise.all([1, 2, 3, 4].map(() => runAnalyticsMigrations({ analytics, lock: { analytics: true }, pollMs: 10 })));
  expect(probe.most).toBe(1);
  expect(results.flat()).toEqual(['003_rollups']);
  // Four holdings, four generations (the fencing token only grows); only the last table is kept, released.
  const tables = await leaseTables();
  expect(tables.map((t) => t.generation)).toEqual([before + 4]);
  expect(tables[0]?.lease.expiresAt).toBe(0);
});

test('analytics lock: a stalled holder whose lease expired and was taken over stops before its next statement', async () => {
  let now = Date.now();
  let successor: Promise<string[]> | undefined;
  const second = scripted(['other'], async () => undefined);
  const first = scripted(['create', 'backfill', 'record'], async (s) => {
    if (s !== 'create') return;
    now += 1500; // past its 1 s lease: another process takes generation N+1 and migrates
    successor = runAnalyticsMigrations({ analytics: second.analytics, lock: { analytics: true }, leaseMs: 1000, pollMs: 10, now: () => now });
    await successor;
  });
  await expect(runAnalyticsMigrations({ analytics: first.analytics, lock: { analytics: true }, leaseMs: 1000, pollMs: 10, now: () => now })).rejects.toThrow(
    /taken over/,
  );
  expect(first.ran).toEqual(['create']);
  expect(second.ran).toEqual(['other']);
  // The stalled holder did not release (or touch) its successor's lease.
  const [last] = (await leaseTables()).slice(-1);
  expect(last?.lease.expiresAt).toBe(0);
});

test('analytics lock: a live holder is waited for, then refused', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const holder = scripted(['long'], () => gate);
  const running = runAnalyticsMigrations({ analytics: holder.analytics, lock: { analytics: true }, pollMs: 10 });
  while (holder.ran.length === 0) await new Promise((r) => setTimeout(r, 10));
  const waiter = scripted(['never'], async () => undefined);
  await expect(runAnalyticsMigrations({ analytics: waiter.analytics, lock: { analytics: true }, pollMs: 10, waitMs: 100 })).rejects.toThrow(/gave up waiting/);
  expect(waiter.ran).toEqual([]);
  release();
  expect(await running).toEqual(['x']);
});
