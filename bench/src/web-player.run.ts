/**
 * Web player fleet (`pnpm --filter @pylon/bench exec tsx src/web-player.run.ts`): N simulated /play
 * screens (default 200, BENCH_SCREENS) against one all-in-one, each doing what the page does over
 * HTTP: load /play/ and its script, fetch its manifest, then long-poll `POST /player/{key}/ping?wait=25`
 * and refetch the manifest (If-None-Match) whenever a ping names a new version. Meanwhile a schedule
 * naming every screen is edited BENCH_EDITS times (default 10); for each edit, the time until every
 * screen holds the new manifest (fan-out p50/p95/max over screens). Errors (non-2xx/304, network)
 * are counted; the run fails when there is any.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@pylon/kit';
import { startAllInOne } from '@pylon/gateway/all-in-one';
import { allInOneEnv } from '@pylon/gateway/config';

const KEY = 'bench-key-0123456789abcdef';
const smoke = process.env.BENCH_SMOKE === 'true';
const SCREENS = Number(process.env.BENCH_SCREENS ?? (smoke ? 20 : 200));
const EDITS = Number(process.env.BENCH_EDITS ?? (smoke ? 2 : 10));
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-web-player-'));
const env = loadConfig(allInOneEnv, {
  NODE_ENV: 'production',
  SIGNAGE_DATA_DIR: dir,
  PORT: '0',
  LEGACY_PORT: '0',
  LOG_LEVEL: 'silent',
  SIGNAGE_BOOTSTRAP_API_KEY: KEY,
  SIGNAGE_INTERNAL_SECRET: 's'.repeat(64),
  SIGNAGE_SIMULATOR: 'false',
  RATE_LIMIT_POINTS: '1000000000',
});
const app = await startAllInOne(env, { logger: createLogger({ level: 'silent' }) });
const base = app.baseUrl;
const headers = { 'x-service-apikey': KEY, 'content-type': 'application/json' };
const gql = async (query: string, variables: Record<string, unknown> = {}) => {
  const r = (await (await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) })).json()) as {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL answers, read by field
    data: Record<string, any>;
    errors?: unknown;
  };
  if (r.errors) throw new Error(JSON.stringify(r.errors));
  return r.data;
};

let errors = 0;
const error = (what: string) => {
  errors++;
  if (errors <= 5) console.error(`error: ${what}`);
};

// Screens: devices registered through REST (as claimDevice would create them).
const keys: { id: string; key: string }[] = [];
for (let i = 0; i < SCREENS; i += 20) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(20, SCREENS - i) }, async (_, j) => {
      const r = (await (await fetch(`${base}/devices`, { method: 'POST', headers, body: JSON.stringify({ name: `Web screen ${i + j}` }) })).json()) as {
        id: string;
        registration_key: string;
      };
      return { id: r.id, key: r.registration_key };
    }),
  );
  keys.push(...batch);
}
const playlists: string[] = [];
for (const name of ['A', 'B'])
  playlists.push((await gql(`mutation { createPlaylist(input: { name: "${name}" }) { playlist { id } } }`)).createPlaylist.playlist.id);
const input = (playlistId: string) => ({ name: 'Fleet', type: 'PLAYLIST', playlistId, deviceIds: keys.map((k) => k.id) });
const scheduleId = (await gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { schedule { id } } }', { i: input(playlists[0]!) })).createSchedule
  .schedule.id as string;

/** Each screen's manifest version and when it last changed. */
const held = new Map<string, { version: string; at: number }>();
let stopping = false;
const controllers = new Set<AbortController>();

async function screen(s: { id: string; key: string }): Promise<void> {
  for (const path of ['/play/', '/play/assets/player.js']) {
    const r = await fetch(`${base}${path}`).catch(() => null);
    if (!r?.ok) error(`${path} ${r?.status}`);
    await r?.arrayBuffer();
  }
  let etag: string | null = null;
  const refetch = async () => {
    const r = await fetch(`${base}/player/${s.key}/manifest`, { headers: etag ? { 'if-none-match': etag } : {} }).catch(() => null);
    if (!r || (r.status !== 200 && r.status !== 304)) return error(`manifest ${r?.status}`);
    if (r.status === 200) {
      etag = r.headers.get('etag');
      const m = (await r.json()) as { version: string };
      held.set(s.id, { version: m.version, at: performance.now() });
    }
  };
  await refetch();
  let wait = 0;
  while (!stopping) {
    const ac = new AbortController();
    controllers.add(ac);
    try {
      const r = await fetch(`${base}/player/${s.key}/ping?wait=${wait}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'web', player_version: 'bench', meta: { playing: 'x' } }),
        signal: ac.signal,
      });
      if (r.status !== 200) {
        error(`ping ${r.status}`);
        await new Promise((res) => setTimeout(res, 1000));
        continue;
      }
      const p = (await r.json()) as { manifest_version?: string };
      if (p.manifest_version && p.manifest_version !== held.get(s.id)?.version) await refetch();
    } catch (e) {
      if (!stopping) error(`ping ${(e as Error).message}`);
    } finally {
      controllers.delete(ac);
    }
    wait = 25;
  }
}

const t0 = performance.now();
const running = keys.map((k) => screen(k));
// All screens hold their first manifest.
while (held.size < keys.length) await new Promise((r) => setTimeout(r, 50));
console.log(`${SCREENS} screens loaded /play and their manifests in ${Math.round(performance.now() - t0)} ms`);
await new Promise((r) => setTimeout(r, 1500)); // every screen is long-polling now

const fanout: { p50: number; p95: number; max: number }[] = [];
for (let e = 0; e < EDITS; e++) {
  const before = new Set([...held.values()].map((h) => h.version));
  const started = performance.now();
  await gql('mutation($id: ID!, $i: ScheduleInput!) { updateSchedule(id: $id, input: $i) { success } }', { id: scheduleId, i: input(playlists[(e + 1) % 2]!) });
  const deadline = started + 30_000;
  while ([...held.values()].some((h) => before.has(h.version)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const lat = [...held.values()].map((h) => (before.has(h.version) ? Infinity : h.at - started)).sort((a, b) => a - b);
  const pct = (p: number) => Math.round(lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)]!);
  fanout.push({ p50: pct(50), p95: pct(95), max: pct(100) });
  if (lat.some((l) => l === Infinity)) error(`edit ${e}: ${lat.filter((l) => l === Infinity).length} screens did not get the new manifest within 30 s`);
  await new Promise((r) => setTimeout(r, 500));
}
stopping = true;
(app.subgraphs.devices as unknown as { runtime: { releaseWaiters(): void } }).runtime.releaseWaiters();
for (const c of controllers) c.abort();
await Promise.allSettled(running);
const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `edit -> every screen's manifest, ${EDITS} edits x ${SCREENS} screens: per-edit p50 (median over edits) ${med(fanout.map((f) => f.p50))} ms, ` +
    `p95 ${med(fanout.map((f) => f.p95))} ms, worst max ${Math.max(...fanout.map((f) => f.max))} ms; errors ${errors}`,
);
await app.close();
await rm(dir, { recursive: true, force: true });
if (errors > 0) process.exit(1);
