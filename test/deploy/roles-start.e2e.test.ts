/**
 * Every role started from dist/ the way the image starts it (`node --conditions=pylon-dist
 * launcher/dist/role.main.js <role>`), with production settings, from a working directory the
 * process cannot write (as uid 65534 when the tests run as root, the image's non-root user
 * stand-in), the embedded backends' data only in a declared volume directory: the migrations job
 * completes, the six subgraphs, the gateway and both facades become ready (/readyz 200) wired to
 * each other, the admin CLI runs, and the all-in-one becomes ready. Start limit: 60 s per process,
 * for a loaded 2-core machine. Builds dist/ first when it is not current.
 * Under PYLON_IMAGE_NODE (CI sets it: `node scripts/image-node.cjs`), every process runs on that
 * binary, the Node.js version the image runs (the Dockerfile's NODE_IMAGE); else on this one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROLES } from '../../launcher/src/roles.js';
import { ROOT } from './deploy.helpers.js';

const dist = createRequire(import.meta.url)(join(ROOT, 'scripts/dist.cjs')) as { isCurrent(): boolean };
const START_LIMIT_MS = 60_000;
/** The Node.js the roles run on: the image's when CI fetched it, else the one running the tests. */
const NODE = process.env.PYLON_IMAGE_NODE || process.execPath;
const SECRET = 's'.repeat(64);
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

let cwd: string;
let volume: string;
let compileCaches: string;
const children: ChildProcess[] = [];
const output = new Map<string, string>();
const closed = new WeakMap<ChildProcess, Promise<number | null>>();

function run(role: string, env: Record<string, string>, extraArgs: string[] = []): ChildProcess {
  const child = spawn(NODE, ['--conditions=pylon-dist', join(ROOT, 'launcher/dist/role.main.js'), role, ...extraArgs], {
    cwd,
    // As the image: a compile cache in the process's own /tmp (here one directory per role).
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', LOG_LEVEL: 'warn', NODE_COMPILE_CACHE: join(compileCaches, role), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  closed.set(
    child,
    new Promise((resolve) =>
      child.once('close', (code) => {
        output.set(role, out);
        resolve(code);
      }),
    ),
  );
  Object.defineProperty(child, 'output', { get: () => out });
  children.push(child);
  return child;
}

async function ready(role: string, child: ChildProcess, port: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < START_LIMIT_MS) {
    if (child.exitCode !== null) throw new Error(`${role} exited with ${child.exitCode}: ${(child as unknown as { output: string }).output}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${role} was not ready within ${START_LIMIT_MS} ms: ${(child as unknown as { output: string }).output}`);
}

/** Resolves once the process has exited and its output is complete (its streams closed). */
const exitCode = (child: ChildProcess): Promise<number | null> => closed.get(child)!;

beforeAll(() => {
  if (!dist.isCurrent()) {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.cjs')], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build failed: ${r.stderr}`);
  }
  cwd = mkdtempSync(join(tmpdir(), 'pylon-ro-'));
  chmodSync(cwd, 0o555);
  volume = mkdtempSync(join(tmpdir(), 'pylon-volume-'));
  compileCaches = mkdtempSync(join(tmpdir(), 'pylon-compile-cache-'));
  if (asRoot) chownSync(compileCaches, NOBODY, NOBODY);
  if (asRoot) chownSync(volume, NOBODY, NOBODY);
}, 60_000);

test('the roles run on the Node.js the image runs, when it is given', () => {
  const version = spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(
    `roles run on Node.js ${version}${process.env.PYLON_IMAGE_NODE ? " (PYLON_IMAGE_NODE, the image's)" : ' (the test runner’s; PYLON_IMAGE_NODE not set)'}`,
  );
  if (process.env.PYLON_IMAGE_NODE) {
    const { imageNodeVersion } = createRequire(import.meta.url)(join(ROOT, 'scripts/image-node.cjs')) as { imageNodeVersion(): string };
    expect(version).toBe(`v${imageNodeVersion()}`);
  }
});

afterAll(async () => {
  await Promise.all(
    children.map((c) => {
      if (c.exitCode !== null) return undefined;
      const done = exitCode(c);
      c.kill('SIGTERM');
      return done;
    }),
  );
  rmSync(volume, { recursive: true, force: true });
  rmSync(compileCaches, { recursive: true, force: true });
  chmodSync(cwd, 0o755);
  rmSync(cwd, { recursive: true, force: true });
}, 60_000);

const backends = () => ({ SIGNAGE_DATA_DIR: volume, MIGRATE_AT_START: 'false' });

describe('every role starts from dist/ with production settings and a read-only working directory', () => {
  test('the migrations job completes on the data volume (indexes, analytics migrations, first account and key)', async () => {
    const job = run('migrate', { ...backends(), SIGNAGE_BOOTSTRAP_API_KEY: 'bootstrap-key-0123456789abcdef' });
    expect(await exitCode(job)).toBe(0);
    expect(readdirSync(volume).sort()).toEqual(['analytics', 'documents']);
  }, 90_000);

  test('the migrations job runs again without changing anything (every deploy runs it; before the analytics process opens the embedded chDB dir)', async () => {
    const job = run('migrate', { ...backends(), SIGNAGE_BOOTSTRAP_API_KEY: 'bootstrap-key-0123456789abcdef', LOG_LEVEL: 'info' });
    expect(await exitCode(job)).toBe(0);
    expect(output.get('migrate')).toContain('bootstrap API key already present');
    expect(output.get('migrate')).not.toMatch(/first account and API key created|"level":[56]\d/);
  }, 90_000);

  test('the six subgraphs, the gateway and both facades become ready, wired to each other', async () => {
    const subgraphs = ROLES.filter((r) => r.kind === 'subgraph');
    const ports = Object.fromEntries(await Promise.all(subgraphs.map(async (r) => [r.name, await freePort()] as const)));
    const url = (name: string) => `http://127.0.0.1:${ports[name]}`;
    const urls = {
      IDENTITY_URL: url('identity'),
      DEVICES_URL: url('devices'),
      CONTENT_URL: url('content'),
      SCHEDULING_URL: url('scheduling'),
      DATATABLES_URL: url('datatables'),
      ANALYTICS_URL: url('analytics'),
    };
    const times: Record<string, number> = {};
    await Promise.all(
      subgraphs.map(async (r) => {
        const child = run(r.name, { ...backends(), ...urls, HOST: '127.0.0.1', PORT: String(ports[r.name]), SIGNAGE_INTERNAL_SECRET: SECRET });
        times[r.name] = await ready(r.name, child, ports[r.name]!);
      }),
    );
    const gatewayPort = await freePort();
    const gateway = run('gateway', { ...urls, HOST: '127.0.0.1', PORT: String(gatewayPort), SIGNAGE_INTERNAL_SECRET: SECRET });
    times.gateway = await ready('gateway', gateway, gatewayPort);
    const facades = await Promise.all(
      ['rest', 'legacy'].map(async (role) => {
        const port = await freePort();
        const child = run(role, { HOST: '127.0.0.1', PORT: String(port), GATEWAY_URL: `http://127.0.0.1:${gatewayPort}/graphql` });
        times[role] = await ready(role, child, port);
        return [role, port] as const;
      }),
    );
    // The bootstrap key of the migrations job works end to end: REST -> gateway -> identity + devices.
    const restPort = facades.find(([r]) => r === 'rest')![1];
    const res = await fetch(`http://127.0.0.1:${restPort}/devices`, { headers: { 'X-Service-ApiKey': 'bootstrap-key-0123456789abcdef' } });
    expect(res.status).toBe(200);
    // Nothing was written where the processes run; only the declared volume holds data.
    expect(readdirSync(cwd)).toEqual([]);
    console.log(
      `start to ready from dist/ (ms, ${Object.keys(times).length} processes started together): ${JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(v)])))}`,
    );
  }, 240_000);

  test('the admin CLI runs against the same data', async () => {
    const cli = run('admin', { SIGNAGE_DATA_DIR: volume }, ['create-account', '--name', 'Second', '--json']);
    expect(await exitCode(cli)).toBe(0);
    expect(JSON.parse(output.get('admin')!.trim().split('\n').at(-1)!)).toMatchObject({ name: 'Second' });
  }, 90_000);

  test('the all-in-one becomes ready', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'pylon-aio-'));
    if (asRoot) chownSync(dir, NOBODY, NOBODY);
    try {
      const child = run('all-in-one', {
        SIGNAGE_DATA_DIR: dir,
        HOST: '127.0.0.1',
        PORT: String(port),
        LEGACY_PORT: String(await freePort()),
        SIGNAGE_DEMO: 'false',
      });
      const ms = await ready('all-in-one', child, port);
      console.log(`all-in-one start to ready from dist/: ${Math.round(ms)} ms`);
      // Where Node keeps a compile cache (22.10+), it is written once the process listens, not only at
      // a clean exit (a killed container would otherwise start its next run cold).
      const [major, minor] = spawnSync(NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim().split('.').map(Number);
      if (major! > 22 || (major === 22 && minor! >= 10)) {
        const files = readdirSync(join(compileCaches, 'all-in-one'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
        expect(files.length).toBeGreaterThan(100);
      }
      // Its signal handlers are installed once the banner is printed, just after it is ready.
      while (!(child as unknown as { output: string }).output.includes('Pylon is running')) await new Promise((r) => setTimeout(r, 50));
      const done = exitCode(child);
      child.kill('SIGTERM');
      expect(await done).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  test('the all-in-one from dist/ is one bundle that the image can copy: no path of the build machine, every import at a file', () => {
    // scripts/bundle-entry.cjs: the workspace code in launcher/dist/bundle/, third-party packages at their own files.
    expect(readFileSync(join(ROOT, 'launcher/dist/all-in-one.main.js'), 'utf8')).toContain("import './bundle/all-in-one.main.js'");
    const bundleDir = join(ROOT, 'launcher/dist/bundle');
    const files = readdirSync(bundleDir).filter((f) => f.endsWith('.js'));
    const specifiers = new Set<string>();
    for (const f of files) {
      const code = readFileSync(join(bundleDir, f), 'utf8');
      expect(code).not.toContain(ROOT);
      for (const m of code.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) specifiers.add(m[1]!);
      for (const m of code.matchAll(/new URL\("(\.{1,2}\/[^"]+)", import\.meta\.url\)/g)) specifiers.add(m[1]!);
    }
    expect([...specifiers].some((s) => s.includes('/node_modules/.pnpm/'))).toBe(true);
    expect([...specifiers].filter((s) => !existsSync(join(bundleDir, s)))).toEqual([]);
  });

  test.each([
    {
      role: 'telemetry-consumer',
      prefix: 'pylon-ingest-',
      title: 'the telemetry consumer becomes ready on its own data dir (embedded chDB and stream are one process each)',
    },
    { role: 'webhook-worker', prefix: 'pylon-webhooks-', title: 'the webhook worker becomes ready on its own data dir and stops cleanly' },
  ])(
    '$title',
    async ({ role, prefix }) => {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), prefix));
      if (asRoot) chownSync(dir, NOBODY, NOBODY);
      try {
        const child = run(role, { SIGNAGE_DATA_DIR: dir, HOST: '127.0.0.1', PORT: String(port) });
        await ready(role, child, port);
        const done = exitCode(child);
        child.kill('SIGTERM');
        expect(await done).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );

  test('an unknown role is refused with the list of roles', async () => {
    const child = run('nope', {});
    expect(await exitCode(child)).toBe(2);
    expect(output.get('nope')).toContain('roles: identity');
    expect(readFileSync(join(ROOT, 'launcher/dist/role.main.js'), 'utf8')).not.toContain('tsx');
  });
});
