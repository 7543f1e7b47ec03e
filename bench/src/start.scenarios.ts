/**
 * Scenario 8 (start): spawn to ready (/readyz answers 200) of a subgraph process (datatables, on
 * its own LMDB store) and of the all-in-one, started from the compiled build (`node
 * --conditions=pylon-dist <pkg>/dist/...js`, what the image runs) and through tsx (the TypeScript
 * sources). Builds dist/ first when it is not current. Median of `runs` starts each, and the
 * process's CPU time (user + system, from /proc) when it first answered 200.
 * Alone: `pnpm --filter @pylon/bench exec tsx src/start.run.ts`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { userShellEnv } from '@pylon/kit/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dist = createRequire(import.meta.url)(join(ROOT, 'scripts/dist.cjs')) as { isCurrent(): boolean; CONDITION: string };

export interface StartResult {
  name: string;
  distMs: number;
  /** CPU time of the dist/ process when ready (median), where /proc tells it. */
  distCpuMs?: number;
  tsxMs?: number;
}

export interface StartOptions {
  /** Only the targets whose name contains this ('all-in-one', 'datatables', 'npm start'). */
  only?: string;
  /** Also start through tsx (default true). */
  tsx?: boolean;
  /**
   * Also start the all-in-one from dist/ the way the image does: under this Node binary (the
   * Dockerfile's, imageNode()) with NODE_COMPILE_CACHE set, after one start that fills the cache.
   */
  imageNode?: string | undefined;
  /** Before timing `npm start`, let the first (seeding) start send the demo's telemetry history (default true). */
  waitForDemoHistory?: boolean;
}

/**
 * The image's Node.js as a binary on this machine: PYLON_IMAGE_NODE, else scripts/image-node.cjs
 * (fetched once from the npm registry into .tmp/); undefined when neither gives one.
 */
export function imageNode(): string | undefined {
  if (process.env.PYLON_IMAGE_NODE) return process.env.PYLON_IMAGE_NODE;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/image-node.cjs')], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  return r.status === 0 ? r.stdout.trim() || undefined : undefined;
}

/** CPU time (user + system) a process has used so far, from /proc (Linux; undefined elsewhere). */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime (fields 14 and 15), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** A loopback port free now (the system picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

export interface StartedProcess {
  pid: number;
  baseUrl: string;
  /** Milliseconds from spawn until /readyz answered 200. */
  readyMs: number;
  /** The warnings and errors it logged since the last call, counted by `logger: message: error` (then forgotten). */
  takeWarnings(): Map<string, number>;
  stop(): Promise<void>;
}

/** A JSON log line's `logger: message: error` when it is a warning or worse; hex runs of key length masked (the bench's output is committed). */
function warningOf(line: string): string | null {
  let r: { level?: number; name?: string; msg?: string; err?: { message?: string } };
  try {
    r = JSON.parse(line) as typeof r;
  } catch {
    return null;
  }
  if (typeof r.level !== 'number' || r.level < 40) return null;
  return `${r.name ?? 'server'}: ${r.msg ?? ''}${r.err?.message ? `: ${r.err.message}` : ''}`.replace(/[0-9a-f]{32,}/gi, '<hex>').slice(0, 240);
}

/**
 * Spawns `cmd` with its data in a fresh directory (or in `sharedDir`, which it leaves in place) and
 * waits until GET /readyz on `readyPort` answers 200 (limit 60 s: a busy 2-core machine starts
 * slowly); `stop()` ends it with SIGTERM and removes the fresh directory.
 */
export async function spawnReady(cmd: string[], env: Record<string, string>, readyPort: number, sharedDir?: string): Promise<StartedProcess> {
  const dir = sharedDir ?? (await mkdtemp(join(tmpdir(), 'pylon-start-')));
  const started = performance.now();
  const child = spawn(cmd[0] as string, cmd.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      SIGNAGE_DATA_DIR: dir,
      SIGNAGE_INTERNAL_SECRET: 's'.repeat(64),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Its log (warn and above: LOG_LEVEL), read line by line so the pipe never fills.
  const warnings = new Map<string, number>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const w = warningOf(line);
    if (w) warnings.set(w, (warnings.get(w) ?? 0) + 1);
  });
  const takeWarnings = () => {
    const taken = new Map(warnings);
    warnings.clear();
    return taken;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (!sharedDir) await rm(dir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${readyPort}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${cmd.join(' ')} exited with ${child.exitCode}`);
    }
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { pid: child.pid!, baseUrl, readyMs: performance.now() - started, takeWarnings, stop };
    await new Promise((r) => setTimeout(r, 10));
  }
  await stop();
  throw new Error(`${cmd.join(' ')} was not ready within 60 s`);
}

/** Milliseconds from spawn until GET /readyz answers 200 and the CPU time by then; then the process is stopped. */
async function timeToReady(cmd: string[], env: Record<string, string>, readyPort: number): Promise<{ ms: number; cpuMs?: number }> {
  const p = await spawnReady(cmd, env, readyPort);
  const cpu = cpuMs(p.pid);
  await p.stop();
  return cpu === undefined ? { ms: p.readyMs } : { ms: p.readyMs, cpuMs: cpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export function ensureBuilt(): void {
  if (dist.isCurrent()) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.cjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed');
}

/** The all-in-one from dist/ (built first when not current), as the image runs it, on free ports; running until `stop()`. */
export async function startAllInOneProcess(env: Record<string, string> = {}): Promise<StartedProcess> {
  ensureBuilt();
  const port = await freePort();
  const cmd = [process.execPath, `--conditions=${dist.CONDITION}`, join(ROOT, 'launcher/dist/all-in-one.main.js')];
  return spawnReady(cmd, { PORT: String(port), LEGACY_PORT: String(await freePort()), ...env }, port);
}

export async function startScenario(runs: number, opts: StartOptions = {}): Promise<StartResult[]> {
  ensureBuilt();
  const node = (entry: string) => [process.execPath, `--conditions=${dist.CONDITION}`, join(ROOT, entry)];
  const tsx = (entry: string) => [join(ROOT, 'node_modules/.bin/tsx'), join(ROOT, entry)];
  const targets: Array<{ name: string; dist: string; src: string; env: Record<string, string> }> = [
    { name: 'datatables subgraph', dist: 'services/datatables/dist/main.js', src: 'services/datatables/src/main.ts', env: {} },
    { name: 'all-in-one', dist: 'launcher/dist/all-in-one.main.js', src: 'launcher/src/all-in-one.main.ts', env: { SIGNAGE_SIMULATOR: 'false' } },
  ];
  const cacheDir = opts.imageNode ? await mkdtemp(join(tmpdir(), 'pylon-compile-cache-')) : undefined;
  const imageVersion = opts.imageNode ? spawnSync(opts.imageNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
  const out: StartResult[] = [];
  for (const t of targets.filter((t) => !opts.only || t.name.includes(opts.only))) {
    const d: { ms: number; cpuMs?: number }[] = [];
    const s: { ms: number }[] = [];
    for (let i = 0; i < runs; i++) {
      for (const [cmd, into] of [[node(t.dist), d], ...(opts.tsx === false ? [] : [[tsx(t.src), s] as const])] as const) {
        const port = await freePort();
        const extra: Record<string, string> = t.name === 'all-in-one' ? { LEGACY_PORT: String(await freePort()) } : {};
        into.push(await timeToReady(cmd, { ...t.env, ...extra, PORT: String(port) }, port));
      }
    }
    out.push(summary(t.name, d, s));
    if (t.name === 'all-in-one' && opts.imageNode && cacheDir) {
      // As the image runs: its Node, its compile cache, filled by a first start that is not counted.
      const image = [opts.imageNode, `--conditions=${dist.CONDITION}`, join(ROOT, t.dist)];
      const imageRuns: { ms: number; cpuMs?: number }[] = [];
      for (let i = 0; i <= runs; i++) {
        const port = await freePort();
        const r = await timeToReady(image, { ...t.env, NODE_COMPILE_CACHE: cacheDir, LEGACY_PORT: String(await freePort()), PORT: String(port) }, port);
        if (i > 0) imageRuns.push(r);
      }
      out.push(summary(`all-in-one, the image's Node ${imageVersion}, compile cache warm`, imageRuns, []));
    }
  }
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  if (!opts.only || 'npm start'.includes(opts.only)) out.push(...(await npmStartScenario(runs, opts.waitForDemoHistory ?? true)));
  return out;
}

/**
 * `npm start` as a user types it in a shell (none of the bench's settings or npm/pnpm variables), on
 * a data dir a first, uncounted start seeded with the demo (its telemetry history waited for, up to
 * 120 s, when `waitForHistory`): the median of `runs` starts to the banner and to /readyz 200.
 */
async function npmStartScenario(runs: number, waitForHistory: boolean): Promise<StartResult[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pylon-npm-start-'));
  try {
    await npmStartOnce(dataDir, waitForHistory ? 120_000 : 0);
    const r: { bannerMs: number; ms: number }[] = [];
    for (let i = 0; i < runs; i++) r.push(await npmStartOnce(dataDir, 0));
    return [
      { name: 'npm start, existing data dir: the banner', distMs: median(r.map((x) => x.bannerMs)) },
      { name: 'npm start, existing data dir: /readyz', distMs: median(r.map((x) => x.ms)) },
    ];
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function npmStartOnce(dataDir: string, historyWaitMs: number): Promise<{ bannerMs: number; ms: number }> {
  const port = await freePort();
  const env = userShellEnv(process.env, { PORT: String(port), LEGACY_PORT: String(await freePort()), SIGNAGE_DATA_DIR: dataDir });
  const started = performance.now();
  // Its own process group: the stop reaches npm and the server as a terminal's Ctrl-C would.
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let bannerMs = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (!bannerMs && out.includes('Pylon is running')) bannerMs = performance.now() - started;
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    let ms = 0;
    const deadline = Date.now() + 120_000;
    while (!ms || !bannerMs) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`npm start was not ready within 120 s (exit ${child.exitCode}):\n${out.slice(-2000)}`);
      if (
        !ms &&
        (await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        ))
      )
        ms = performance.now() - started;
      else await new Promise((r) => setTimeout(r, 10));
    }
    const historyDeadline = Date.now() + historyWaitMs;
    while (Date.now() < historyDeadline && !readLog(dataDir).includes('demo telemetry history sent')) await new Promise((r) => setTimeout(r, 500));
    return { bannerMs, ms };
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

const readLog = (dataDir: string) => {
  try {
    return readFileSync(join(dataDir, 'pylon.log'), 'utf8');
  } catch {
    return '';
  }
};

function summary(name: string, d: { ms: number; cpuMs?: number }[], s: { ms: number }[]): StartResult {
  const cpu = d.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs]));
  return {
    name,
    distMs: median(d.map((r) => r.ms)),
    ...(cpu.length ? { distCpuMs: median(cpu) } : {}),
    ...(s.length ? { tsxMs: median(s.map((r) => r.ms)) } : {}),
  };
}

export function printStart(results: StartResult[], runs: number): void {
  console.log(`\nScenario 8: start to ready (/readyz 200), median of ${runs}\n`);
  console.log('| process | from dist/ (node) | its CPU time by then | from sources (tsx) |');
  console.log('| --- | ---: | ---: | ---: |');
  const ms = (v: number | undefined) => (v === undefined ? '-' : `${Math.round(v)} ms`);
  for (const r of results) console.log(`| ${r.name} | ${ms(r.distMs)} | ${ms(r.distCpuMs)} | ${ms(r.tsxMs)} |`);
}
