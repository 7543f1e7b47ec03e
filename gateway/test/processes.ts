/** Starting Pylon entry points as real processes for distributed-mode tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createRedisCache } from '@pylon/adapters/redis';
import { createDevicesSubgraph } from '@pylon/devices';
import { createIdentitySubgraph } from '@pylon/identity';
import { InternalTokens } from '@pylon/kit';
import { entryCommand } from '@pylon/kit/testing';
import { seedDemo } from '../../launcher/src/demo/seed-demo.js';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const TSX = join(ROOT, 'node_modules/.bin/tsx');
export { entryCommand, TSX_LOADER, userShellEnv } from '@pylon/kit/testing';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/**
 * Seeds the demo (account, bootstrap key, devices) into `dataDir`'s embedded store through the
 * public use cases, lets `more` add what the test needs, then closes the store for the processes
 * to share (LMDB is multi-process safe).
 */
export async function seedDemoStore(
  dataDir: string,
  secret: string,
  bootstrapKey: string,
  more?: (seeded: { identity: ReturnType<typeof createIdentitySubgraph>; devices: ReturnType<typeof createDevicesSubgraph> }) => Promise<void>,
): Promise<void> {
  const store = await createLmdbDocumentStore({ path: join(dataDir, 'documents') });
  try {
    const tokens = new InternalTokens(secret);
    const identity = createIdentitySubgraph({ documents: store, cache: createMemoryCache(), tokens, principalCacheSeconds: 30 });
    const devices = createDevicesSubgraph({ documents: store, tokens, onlineWindowSeconds: 600, organizations: { belongsTo: async () => false } });
    await seedDemo({ identity: identity.repo, devices: devices.repo, bootstrapKey });
    await more?.({ identity, devices });
  } finally {
    await store.close();
  }
}

/**
 * Writes what a test needs into `dataDir`'s embedded store through the identity subgraph's use cases
 * (`seed`), then closes the store for the processes to share; answers what `seed` answers.
 */
export async function seedIdentity<T>(dataDir: string, secret: string, seed: (identity: ReturnType<typeof createIdentitySubgraph>) => Promise<T>): Promise<T> {
  const store = await createLmdbDocumentStore({ path: join(dataDir, 'documents') });
  try {
    return await seed(createIdentitySubgraph({ documents: store, cache: createMemoryCache(), tokens: new InternalTokens(secret), principalCacheSeconds: 30 }));
  } finally {
    await store.close();
  }
}

/** The subgraph addresses the gateway reads from its environment. */
const SUBGRAPH_URLS = ['IDENTITY_URL', 'DEVICES_URL', 'CONTENT_URL', 'SCHEDULING_URL', 'DATATABLES_URL', 'ANALYTICS_URL'] as const;

/**
 * The gateway's environment for a test that starts only some subgraphs: `env` names those (and any
 * other setting); every subgraph it does not name points at `nowhere`, an address nothing listens
 * on, so the gateway starts and those subgraphs' fields fail fast.
 */
export function gatewayEnv(nowhere: string, env: Record<string, string>): Record<string, string> {
  return { ...Object.fromEntries(SUBGRAPH_URLS.map((name) => [name, nowhere])), ...env };
}

/** The Redis the distributed tests share (REDIS_URL, else the local default), and whether it answers. */
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
export async function redisAnswers(url = REDIS_URL): Promise<boolean> {
  const probe = createRedisCache({ url, commandTimeoutMs: 1000 });
  const ok = await probe.ping().then(
    () => true,
    () => false,
  );
  await probe.close();
  return ok;
}

/** A set of child processes sharing a secret and a data dir; `stopAll` sends SIGTERM and waits. */
export class Processes {
  readonly children: ChildProcess[] = [];
  /** What the children wrote to stdout and stderr, when started with `capture`. */
  private printed = '';
  constructor(private readonly base: { secret: string; dataDir: string; logLevel?: string; capture?: boolean; startTimeoutMs?: number }) {}

  /** Processes on a fresh data dir (`pylon-<name>-…` in the system's temp dir); `dispose` stops them and removes it. */
  static async inTempDir(name: string, base: { secret: string; logLevel?: string }): Promise<Processes> {
    return new Processes({ ...base, dataDir: await mkdtemp(join(tmpdir(), `pylon-${name}-`)) });
  }

  get dataDir(): string {
    return this.base.dataDir;
  }

  /** Stops the children, then removes the data dir. */
  async dispose(): Promise<void> {
    await this.stopAll();
    await rm(this.base.dataDir, { recursive: true, force: true });
  }

  /**
   * Everything the children logged, when started with `capture` (log-hygiene checks): what they
   * printed, then the all-in-one's log file (LOG_FILE, default SIGNAGE_DATA_DIR/pylon.log: its
   * request and info lines go there, the console keeps warnings and errors).
   */
  get output(): string {
    const file = join(this.base.dataDir, 'pylon.log');
    return this.printed + (existsSync(file) ? readFileSync(file, 'utf8') : '');
  }

  /** Starts `entry` on `port` and resolves with its base URL once it serves: /healthz answers and /readyz lists no 'starting' check (background-start.ts). */
  async start(entry: string, env: Record<string, string>, port: number, startTimeoutMs = this.base.startTimeoutMs ?? 30_000): Promise<string> {
    const [cmd, args] = entryCommand(entry);
    const child = spawn(cmd, args, {
      env: {
        ...process.env,
        // A known demo password (tests may set their own): the all-in-one's banner prints a generated
        // one otherwise, and children not captured print to the test run's log.
        SIGNAGE_DEMO_PASSWORD: 'processes-demo-password-0123456789',
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: this.base.logLevel ?? 'warn',
        SIGNAGE_INTERNAL_SECRET: this.base.secret,
        SIGNAGE_DATA_DIR: this.base.dataDir,
      },
      stdio: ['ignore', this.base.capture ? 'pipe' : 'inherit', this.base.capture ? 'pipe' : 'inherit'],
    });
    child.stdout?.on('data', (d: Buffer) => (this.printed += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.printed += d.toString()));
    this.children.push(child);
    const deadline = Date.now() + startTimeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}${this.base.capture ? `:\n${this.output.slice(-2000)}` : ''}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) {
          const ready = (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json().catch(() => ({}))) as { checks?: Record<string, string> };
          if (!ready.checks?.starting) return `http://127.0.0.1:${port}`;
        }
      } catch {
        /* not up yet */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${entry} did not start${this.base.capture ? `:\n${this.output.slice(-2000)}` : ''}`);
  }

  stopAll(): Promise<void[]> {
    return Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) => {
            // Exited, or ended by a signal (then exitCode stays null and signalCode names it): nothing to wait for.
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGTERM');
          }),
      ),
    );
  }
}

/**
 * `npm start` (the all-in-one) as a child process for a browser test, in development mode on free
 * ports with the bootstrap `key`: `dir` is a fresh folder (its data in `dir/data`, room beside it
 * for a browser profile) that the test removes after `procs.stopAll()`.
 */
export async function startAllInOneProcess(
  name: string,
  key: string,
  env: Record<string, string>,
  startTimeoutMs: number,
): Promise<{ dir: string; procs: Processes; baseUrl: string }> {
  const dir = await mkdtemp(join(tmpdir(), `pylon-${name}-`));
  const procs = new Processes({ secret: 's'.repeat(64), dataDir: join(dir, 'data') });
  const [port, legacy] = await Promise.all([freePort(), freePort()]);
  const entry = 'launcher/src/all-in-one.main.ts';
  const baseUrl = await procs.start(
    entry,
    { LEGACY_PORT: String(legacy), SIGNAGE_BOOTSTRAP_API_KEY: key, NODE_ENV: 'development', ...env },
    port,
    startTimeoutMs,
  );
  return { dir, procs, baseUrl };
}
