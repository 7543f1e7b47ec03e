/** runAnalyticsMigrations: one process migrates at a time; a dead holder's lease is taken over. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentStore } from '@pylon/kit';
import { createLmdbDocumentStore } from '@pylon/kit/adapters/documents.lmdb';
import { runAnalyticsMigrations } from '../src/analytics-migrations.js';

/** These cases count migrate() calls only; no retention is asked for, so no SQL runs. */
const noSql = { query: async () => [], exec: async () => undefined };

let dir: string;
let documents: DocumentStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-analytics-migrations-'));
  documents = await createLmdbDocumentStore({ path: dir });
});
afterAll(async () => {
  await documents?.close();
  await rm(dir, { recursive: true, force: true });
});

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
  const results = await Promise.all([1, 2, 3, 4].map(() => runAnalyticsMigrations({ analytics, documents, pollMs: 10 })));
  expect(most).toBe(1);
  expect(results.flat()).toEqual(['003_rollups']);
  // The lease is released: a later start takes it at once.
  expect(await runAnalyticsMigrations({ analytics, documents, waitMs: 0 })).toEqual([]);
});

test('an expired lease of a dead holder is taken over; a live one is waited for, then refused', async () => {
  const locks = documents.collection<{ holder: string; expiresAt: number }>({ name: 'locks' });
  await locks.insert('_system', { id: 'analytics-migrations', holder: 'dead', expiresAt: Date.now() - 1 });
  const analytics = { ...noSql, migrate: async () => ['x'] };
  expect(await runAnalyticsMigrations({ analytics, documents, pollMs: 10 })).toEqual(['x']);
  await locks.insert('_system', { id: 'analytics-migrations', holder: 'alive', expiresAt: Date.now() + 60_000 });
  await expect(runAnalyticsMigrations({ analytics, documents, pollMs: 10, waitMs: 50 })).rejects.toThrow(/gave up waiting/);
});
