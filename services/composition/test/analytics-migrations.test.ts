/** runAnalyticsMigrations: one process migrates at a time; a dead holder's lease is taken over. */
import type { DocumentStore } from '@pylon/kit';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { runAnalyticsMigrations } from '../src/analytics-migrations.js';

/** These cases count migrate() calls only; no retention is asked for, so no SQL runs. */
const noSql = { query: async () => [], exec: async () => undefined };

let documents: DocumentStore;
beforeAll(async () => {
  documents = await createScratchLmdbStore('pylon-analytics-migrations-');
});
// Each case starts without a lease (one case leaves a live holder's behind on purpose).
beforeEach(async () => {
  await documents.collection({ name: 'locks' }).delete('_system', 'analytics-migrations');
});
afterAll(() => documents?.close());

test('replicas starting together migrate one after the other', async () => {
  let running = 0;
  let most = 0;
  const applied: string[] = [];
  const analytics = {
    ...noSql,
    async migrate() {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 50));
      running--;
      // The first run applies the files; the later ones find nothing pending.
      const done = applied.length ? [] : ['003_rollups'];
      applied.push(...done);
      return done;
    },
  };
  const results = await Promise.all([1, 2, 3, 4].map(() => runAnalyticsMigrations({ analytics, lock: { documents }, pollMs: 10 })));
  expect(most).toBe(1);
  expect(results.flat()).toEqual(['003_rollups']);
  // The lease is released: a later start takes it at once.
  expect(await runAnalyticsMigrations({ analytics, lock: { documents }, waitMs: 0 })).toEqual([]);
});

test('an expired lease of a dead holder is taken over; a live one is waited for, then refused', async () => {
  const locks = documents.collection<{ holder: string; expiresAt: number }>({ name: 'locks' });
  await locks.insert('_system', { id: 'analytics-migrations', holder: 'dead', expiresAt: Date.now() - 1 });
  const analytics = { ...noSql, migrate: async () => ['x'] };
  expect(await runAnalyticsMigrations({ analytics, lock: { documents }, pollMs: 10 })).toEqual(['x']);
  await locks.insert('_system', { id: 'analytics-migrations', holder: 'alive', expiresAt: Date.now() + 60_000 });
  await expect(runAnalyticsMigrations({ analytics, lock: { documents }, pollMs: 10, waitMs: 50 })).rejects.toThrow(/gave up waiting/);
});

test('a holder migrating longer than the lease renews it: a second process waits instead of taking over, then finds nothing to do', async () => {
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  const applied: string[] = [];
  let running = 0;
  let most = 0;
  const analytics = {
    ...noSql,
    async migrate() {
      running++;
      most = Math.max(most, running);
      if (!applied.length) await slow; // the first holder's backfill: over three times its lease
      running--;
      const done = applied.length ? [] : ['011_backfill'];
      applied.push(...done);
      return done;
    },
  };
  // A 2 s lease renewed every ~0.67 s: only an event-loop stall of over 1.3 s here could lose it.
  const first = runAnalyticsMigrations({ analytics, lock: { documents }, leaseMs: 2000, pollMs: 10 });
  while (running === 0) await new Promise((r) => setTimeout(r, 10)); // the first holds the lease and migrates
  const second = runAnalyticsMigrations({ analytics, lock: { documents }, leaseMs: 2000, pollMs: 10 });
  // Several lease lengths pass while the first still migrates: the renewals keep it.
  await new Promise((r) => setTimeout(r, 6500));
  expect(running).toBe(1);
  release();
  expect(await first).toEqual(['011_backfill']);
  expect(await second).toEqual([]);
  expect(most).toBe(1);
}, 30_000);

test("a holder whose lease was taken over does not delete its successor's lease", async () => {
  const locks = documents.collection<{ holder: string; expiresAt: number }>({ name: 'locks' });
  const analytics = {
    ...noSql,
    // While this holder migrates, its lease is replaced by another holder's (as after an expiry).
    async migrate() {
      await locks.delete('_system', 'analytics-migrations');
      await locks.insert('_system', { id: 'analytics-migrations', holder: 'successor', expiresAt: Date.now() + 60_000 });
      return ['x'];
    },
  };
  expect(await runAnalyticsMigrations({ analytics, lock: { documents }, pollMs: 10 })).toEqual(['x']);
  expect((await locks.findById('_system', 'analytics-migrations'))?.holder).toBe('successor');
});
