/**
 * Exactly once into every table, rollups included, under a takeover (issue 33, "what must exist"
 * 3): two ingest PROCESSES of one group over Redis Streams (REDIS_URL; skipped without it, required
 * under CI), one store (the embedded chDB store of this process, served to both:
 * support/store-peer.ts). Member A reads all 600 play records as one batch (inserts of 200 rows),
 * inserts the first 200, looks up which of the next 200 are stored (none) and stalls before
 * inserting them, its event loop blocked three times its lease (claimIdleMs);
 * member B (other batch boundaries: 250 entries) claims the entries and handles them; A wakes.
 * Afterwards the raw table, FINAL or not, and every play rollup (minute, hour, day) hold each
 * record once, and every analytics query answers the same from the raw table and from each rollup.
 * Before the fence, A went on inserting its last 400 rows under its own deduplication tokens after
 * waking (B had stored them under other tokens, its batches cut elsewhere): the raw table held
 * them twice until a merge, the rollups for good.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TOPICS, type AnalyticsStore, type PlayLogRecord } from '@pylon/kit';
import { createRedisStream } from '@pylon/adapters/redis';
import { expectQueriesAgree, until, withChdbStore } from './ingest.helpers.js';
import { serveStore } from './support/store-peer.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const MEMBER = fileURLToPath(new URL('./fixtures/ingest-member.ts', import.meta.url));
const url = process.env.REDIS_URL;
const N = 600;
const CLAIM_IDLE_MS = 1_500;
const DAY = Date.UTC(2026, 4, 4);
const ACCOUNT = `takeover-${randomBytes(3).toString('hex')}`;

let store: AnalyticsStore;
withChdbStore('pylon-takeover-', (s) => (store = s));

const play = (i: number): PlayLogRecord => ({
  id: `p${i}`,
  account_id: ACCOUNT,
  device_id: `d${i % 2}`,
  file_id: `f${i % 3}`,
  file_name: `file ${i % 3}`,
  timestamp: new Date(DAY + 9 * 3_600_000 + i * 1_000).toISOString(),
  duration: 5 + (i % 7),
  type: 'image',
  playlist_id: '',
  schedule_id: '',
  file_known: 1,
});

/** A member process and the words it said. */
function member(name: string, env: Record<string, string>): { child: ChildProcess; said: string[]; go(): void } {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, MEMBER], {
    cwd: ROOT,
    env: { ...process.env, ...env, MEMBER: name },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const said: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => said.push(l));
  return { child, said, go: () => child.stdin!.write('go\n') };
}

const waitSaid = (m: { said: string[] }, word: string, ms: number) => until(async () => m.said.includes(word), ms, `a member to say ${word}`);
const count = async (sql: string) => Number((await store.query<{ c: number }>(sql, { a: ACCOUNT }))[0]!.c);

if (url) {
  test('a member stalled past its lease mid-batch, another taking over: raw tables and every rollup hold each record once', async () => {
    const prefix = `pylon-takeover-${randomBytes(4).toString('hex')}:`;
    const served = await serveStore(store);
    const env = { REDIS_URL: url, STREAM_PREFIX: prefix, STORE_URL: served.url, CLAIM_IDLE_MS: String(CLAIM_IDLE_MS), MAX_ROWS: '200' };
    const a = member('a', { ...env, MAX_BATCH: String(N), STALL_MS: String(3 * CLAIM_IDLE_MS) });
    const b = member('b', { ...env, MAX_BATCH: '250' });
    const producer = createRedisStream({ url, keyPrefix: prefix, retentionIntervalMs: 0 });
    try {
      // Both loaded first (the slow part of a start on a busy machine), so the stall outlasts B's claim.
      await Promise.all([waitSaid(a, 'loaded', 90_000), waitSaid(b, 'loaded', 90_000)]);
      a.go();
      await waitSaid(a, 'ready', 60_000);
      await producer.publish(
        TOPICS.plays,
        Array.from({ length: N }, (_, i) => ({ key: ACCOUNT, value: play(i) })),
      );
      await waitSaid(a, 'stalled', 60_000);
      b.go();
      await waitSaid(a, 'woke', 60_000);
      await until(async () => (await count('SELECT count() AS c FROM play_logs FINAL WHERE account_id = {a:String}')) === N, 60_000, 'every record stored');
      // A moment for what A would still do after waking (before the fence: insert its last 400 rows).
      await new Promise((res) => setTimeout(res, 2 * CLAIM_IDLE_MS + 2_000));
      expect(await count('SELECT count() AS c FROM play_logs WHERE account_id = {a:String}')).toBe(N); // not only collapsed under FINAL
      for (const rollup of ['play_rollup_minute', 'play_rollup_hour', 'play_rollup_day']) {
        expect([rollup, await count(`SELECT sum(plays) AS c FROM ${rollup} WHERE account_id = {a:String}`)]).toEqual([rollup, N]);
      }
      await expectQueriesAgree(store, ACCOUNT, DAY);
    } finally {
      for (const m of [a, b]) m.child.kill('SIGTERM');
      await Promise.all([a, b].map((m) => (m.child.exitCode === null ? new Promise((res) => m.child.once('exit', res)) : undefined)));
      await producer.close();
      await served.close();
    }
  }, 240_000);
} else {
  if (process.env.CI) test('REDIS_URL is needed under CI', () => expect(url).toBeDefined());
  else test.skip('ingest takeover: needs REDIS_URL', () => undefined);
}
