/**
 * Every role started as the image starts it, each with the environment docker-compose.yml and the
 * rendered Kubernetes manifests give it (parsed here, not copied): from dist/, in a bubblewrap
 * sandbox (sandbox.ts) as the image's non-root user, the root filesystem read-only but for the
 * paths the Dockerfile (VOLUME) and that deployment declare writable (compose: its tmpfs and the
 * image's volumes; Kubernetes: the container's volumeMounts).
 * - Scaled servers unreachable (every backend and peer address points at a closed loopback port):
 *   every process is live (/healthz 200), not ready (/readyz 503 naming what it waits for), does
 *   not exit, and stops cleanly on SIGTERM while it waits.
 * - Embedded drivers (the same environments without the server backends): the migrations job
 *   completes and every role becomes ready, wired to each other.
 * - A backend that comes late (Redis, real here): the process becomes ready without a restart.
 * Only PORT/METRICS_PORT (free ports: the roles share this host's network) and the backend
 * addresses are changed. Limits: 120 s per start (up to 11 processes start together), 120 s
 * until a role names its backend, 20 s to stop, for a loaded 2-core machine. Skipped (with a line saying so) where bwrap cannot run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROLES } from '../../launcher/src/roles.js';
import { interpolate, ROOT } from './deploy.helpers.js';
import { freePort } from '../../gateway/test/processes.js';
import { render, renderedEnv, SECRET_EXAMPLE } from './kustomize.js';
import { bwrapWorks, imageFacts, SANDBOX_HOST_USER, sandboxArgs } from './sandbox.js';

type Json = Record<string, any>;
const dist = createRequire(import.meta.url)(join(ROOT, 'scripts/dist.cjs')) as { isCurrent(): boolean };
const NODE = process.env.PYLON_IMAGE_NODE || process.execPath;
const LIMIT_MS = 120_000;
const STOP_LIMIT_MS = 20_000;
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const image = imageFacts();
const usable = bwrapWorks();
const maybe = usable ? describe : describe.skip;
if (!usable)
  console.log(
    'roles-sandbox: skipped: bwrap is missing or may not create a user namespace here (.ci/run installs bubblewrap; kernels that restrict unprivileged user namespaces need them allowed)',
  );

/** The server roles (those a deployment runs for long): subgraphs, edges, workers. */
const SERVED = new Set(ROLES.filter((r) => ['subgraph', 'edge', 'worker'].includes(r.kind)).map((r) => r.name));

interface Deployed {
  role: string;
  env: Record<string, string>;
  /** Writable paths inside: 'tmpfs' or 'volume' (a fresh directory, as an anonymous or emptyDir volume). */
  writable: Record<string, 'tmpfs' | 'volume'>;
  uid: number;
  gid: number;
}

function fromCompose(): Deployed[] {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Json> };
  const vars = { SIGNAGE_INTERNAL_SECRET: 's'.repeat(64), SIGNAGE_BOOTSTRAP_API_KEY: 'bootstrap-key-0123456789abcdef' };
  return Object.values(compose.services)
    .filter((s) => s.build !== undefined)
    .map((s) => {
      expect(s.read_only).toBe(true);
      const [uid, gid] = String(s.user ?? `${image.uid}:${image.gid}`)
        .split(':')
        .map(Number);
      const env = Object.fromEntries(Object.entries((s.environment ?? {}) as Json).map(([k, v]) => [k, interpolate(String(v ?? ''), vars)]));
      const writable: Deployed['writable'] = Object.fromEntries(image.volumes.map((v) => [v, 'volume' as const]));
      for (const t of (s.tmpfs ?? []) as string[]) writable[t] = 'tmpfs';
      for (const v of (s.volumes ?? []) as string[]) writable[v.split(':')[1]!] = 'volume';
      return { role: s.command[0] as string, env: { ...image.env, ...env }, writable, uid: uid!, gid: gid ?? uid! };
    });
}

function fromKubernetes(): Deployed[] {
  const docs = render(join(ROOT, 'k8s/overlays/production'));
  return (docs.filter((d) => ['Deployment', 'StatefulSet', 'Job'].includes(d.kind)) as Json[]).map((d) => {
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    // Without readOnlyRootFilesystem the sandbox would be stricter than the cluster: hold the manifest to it.
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    const volumes = new Map<string, Json>((pod.volumes ?? []).map((v: Json) => [v.name, v]));
    const writable: Deployed['writable'] = {};
    for (const m of (c.volumeMounts ?? []) as Json[]) {
      if (m.readOnly) continue;
      writable[m.mountPath] = volumes.get(m.name)?.emptyDir?.medium === 'Memory' ? 'tmpfs' : 'volume';
    }
    const uid = c.securityContext.runAsUser ?? pod.securityContext?.runAsUser ?? image.uid;
    const gid = c.securityContext.runAsGroup ?? pod.securityContext?.runAsGroup ?? uid;
    return { role: c.args[0], env: { ...image.env, ...renderedEnv(docs as never, c, SECRET_EXAMPLE) }, writable, uid, gid };
  });
}

/** Every `host:port` (a backend, a peer role) pointed at `port` on loopback. */
const pointAt = (env: Record<string, string>, port: number) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replace(/(?<![\w.@-])[a-z][a-z0-9.-]*:\d{2,5}\b/g, `127.0.0.1:${port}`)]));

/** The server backends' settings: without them every role runs on its embedded drivers. */
const SERVER_BACKEND = /^(DOCUMENTS_DRIVER|MONGO_URL|ANALYTICS_DRIVER|CLICKHOUSE_.*|STREAM_DRIVER|KAFKA_.*|CACHE_DRIVER|REDIS_URL|BLOBS_DRIVER|S3_.*)$/;
const embedded = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([k]) => !SERVER_BACKEND.test(k)));

interface Running {
  role: string;
  child: ChildProcess;
  port: number;
  output(): string;
  exited: Promise<number | null>;
  /** The sandboxed node process (bwrap does not pass signals on). */
  pid: Promise<number>;
}

const dirs: string[] = [];
const running: Running[] = [];
const dir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) chownSync(d, NOBODY, NOBODY);
  dirs.push(d);
  return d;
};

/** Starts `d.role` in the sandbox with `env`; `volumes` gives a writable path an existing directory (shared data). */
async function start(d: Deployed, env: Record<string, string>, volumes: Record<string, string> = {}, extra: string[] = []): Promise<Running> {
  const port = Number(env.PORT ?? 0) || (ROLES.find((r) => r.name === d.role)?.port ?? 0);
  const writable = Object.fromEntries(
    Object.entries(d.writable).map(([inside, kind]) => [inside, kind === 'tmpfs' ? 'tmpfs' : (volumes[inside] ?? dir('pylon-vol-'))]),
  );
  const argv = [NODE, ...image.entrypoint.slice(1), d.role, ...extra];
  const child = spawn('bwrap', ['--info-fd', '3', ...sandboxArgs({ uid: d.uid, gid: d.gid, workdir: image.workdir, writable }, argv)], {
    env: { PATH: '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    ...SANDBOX_HOST_USER,
  });
  let out = '';
  const keep = (b: Buffer) => (out = (out + b.toString()).slice(-6000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let info = '';
  const pid = new Promise<number>((resolve, reject) => {
    child.stdio[3]!.on('data', (b: Buffer) => {
      info += b.toString();
      const m = /"child-pid":\s*(\d+)/.exec(info);
      if (m) resolve(Number(m[1]));
    });
    child.once('close', () => reject(new Error(`${d.role}: no child pid from bwrap: ${out}`)));
  });
  pid.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const r = { role: d.role, child, port, output: () => out, exited, pid };
  running.push(r);
  return r;
}

/**
 * `n` free ports, all different: probed one after another (probes made at once could be handed the
 * same port, and two roles on one port end in EADDRINUSE: seen in CI with 11 roles started together).
 */
async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

const get = (port: number, path: string) =>
  fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) }).then(
    async (res) => ({ status: res.status, body: (await res.json().catch(() => ({}))) as Json }),
    () => ({ status: 0, body: {} as Json }),
  );

/** Polls until `ok` holds for the role's answer; fails as soon as the process exits. */
async function until(r: Running, path: string, ok: (a: { status: number; body: Json }) => boolean, what: string): Promise<{ status: number; body: Json }> {
  const started = performance.now();
  let last = { status: 0, body: {} as Json };
  while (performance.now() - started < LIMIT_MS) {
    if (r.child.exitCode !== null) throw new Error(`${r.role} exited with ${r.child.exitCode} (${what}): ${r.output()}`);
    last = await get(r.port, path);
    if (ok(last)) return last;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error(`${r.role}: not ${what} within ${LIMIT_MS} ms (last ${path}: ${last.status} ${JSON.stringify(last.body)}): ${r.output()}`);
}

async function stop(r: Running): Promise<number | null> {
  if (r.child.exitCode !== null) return r.child.exitCode;
  process.kill(await r.pid, 'SIGTERM');
  const timer = new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), STOP_LIMIT_MS).unref());
  const code = await Promise.race([r.exited, timer]);
  if (code === 'timeout') throw new Error(`${r.role} did not stop within ${STOP_LIMIT_MS} ms of SIGTERM: ${r.output()}`);
  return code;
}

beforeAll(() => {
  if (!usable) return;
  if (!dist.isCurrent()) {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.cjs')], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build failed: ${r.stderr}`);
  }
}, 120_000);

afterAll(async () => {
  for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  await Promise.all(running.map((r) => r.exited));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

/** What a role's /readyz names while its servers are unreachable: a backend, or the peer it calls. */
const WAITS_FOR = new Set(['documents', 'analytics', 'stream', 'cache', 'blobs', 'gateway', ...ROLES.filter((r) => r.kind === 'subgraph').map((r) => r.name)]);

maybe.each([
  ['docker-compose.yml', fromCompose],
  ['k8s/overlays/production', fromKubernetes],
] as const)('as %s runs each role, with every server unreachable', (_source, read) => {
  test('every server role is live, not ready (naming what it waits for), stays up, and stops cleanly on SIGTERM', async () => {
    const deployed = read().filter((d) => SERVED.has(d.role));
    expect(deployed.length).toBeGreaterThanOrEqual(9);
    const [closed, ...own] = await distinctFreePorts(1 + 2 * deployed.length);
    const procs = await Promise.all(
      deployed.map((d, i) => start(d, { ...pointAt(d.env, closed!), PORT: String(own[2 * i]), METRICS_PORT: String(own[2 * i + 1]) })),
    );
    await Promise.all(procs.map((r) => until(r, '/healthz', (a) => a.status === 200, 'live')));
    const named = await Promise.all(
      procs.map(async (r) => {
        const a = await until(
          r,
          '/readyz',
          (x) => x.status === 503 && Object.entries((x.body.checks ?? {}) as Json).some(([k, v]) => WAITS_FOR.has(k) && v !== 'ok'),
          'naming what it waits for on /readyz',
        );
        return [r.role, Object.keys(a.body.checks as Json).filter((k) => (a.body.checks as Json)[k] !== 'ok')] as const;
      }),
    );
    console.log(`${_source}, servers unreachable, /readyz 503 names: ${JSON.stringify(Object.fromEntries(named))}`);
    // Still up after every one has failed to reach its servers at least once.
    for (const r of procs)
      expect({ role: r.role, exit: r.child.exitCode, live: (await get(r.port, '/healthz')).status }).toEqual({ role: r.role, exit: null, live: 200 });
    const stopped = await Promise.all(
      procs.map(async (r) => {
        const t = performance.now();
        const code = await stop(r);
        return { role: r.role, code, ms: Math.round(performance.now() - t), output: r.output() };
      }),
    );
    console.log(`${_source}, SIGTERM to exit while waiting (ms): ${JSON.stringify(Object.fromEntries(stopped.map((s) => [s.role, s.ms])))}`);
    expect(stopped.filter((c) => c.code !== 0)).toEqual([]);
  }, 300_000);
});

maybe('with the embedded drivers (docker-compose.yml without its server backends)', () => {
  test('the migrations job completes and every server role becomes ready, wired to each other', async () => {
    const deployed = fromCompose();
    const data = dir('pylon-data-');
    const job = deployed.find((d) => d.role === 'migrate')!;
    const migrate = await start(job, embedded(job.env), { '/data': data });
    expect({ code: await migrate.exited, output: migrate.output() }).toMatchObject({ code: 0 });
    const free = await distinctFreePorts(2 * deployed.length);
    const ports = Object.fromEntries(deployed.map((d, i) => [d.role, free[i]!] as const));
    const metricsPorts = Object.fromEntries(deployed.map((d, i) => [d.role, free[deployed.length + i]!] as const));
    // Every peer address (http://<service>:<port>) to that role's port here.
    const wire = (env: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(env).map(([k, v]) => [
          k,
          v.replace(/^http:\/\/([a-z-]+):\d+/, (m, host: string) => (ports[host] ? `http://127.0.0.1:${ports[host]}` : m)),
        ]),
      );
    const servers = deployed.filter((d) => SERVED.has(d.role));
    // The subgraphs share the data the migrations job wrote (one volume); the others each have their own.
    const procs = await Promise.all(
      servers.map(async (d) =>
        start(
          d,
          {
            ...wire(embedded(d.env)),
            PORT: String(ports[d.role]),
            METRICS_PORT: String(metricsPorts[d.role]),
            // On its own volume the embedded consumer migrates its own store, as the all-in-one does.
            ...(d.role === 'telemetry-consumer' ? { MIGRATE_AT_START: 'true' } : {}),
          },
          ROLES.find((r) => r.name === d.role)?.kind === 'subgraph' ? { '/data': data } : {},
        ),
      ),
    );
    await Promise.all(procs.map((r) => until(r, '/readyz', (a) => a.status === 200, 'ready')));
    const codes = await Promise.all(procs.map(async (r) => ({ role: r.role, code: await stop(r), output: r.output() })));
    expect(codes.filter((c) => c.code !== 0)).toEqual([]);
  }, 300_000);
});

const redisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
(usable && redisServer ? test : test.skip)(
  'a backend that answers late: the telemetry consumer on Redis Streams waits live, then becomes ready without a restart',
  async () => {
    const consumer = fromCompose().find((d) => d.role === 'telemetry-consumer')!;
    const redisPort = await freePort();
    const env = {
      ...embedded(consumer.env),
      STREAM_DRIVER: 'redis',
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      PORT: String(await freePort()),
      METRICS_PORT: String(await freePort()),
      MIGRATE_AT_START: 'true',
    };
    const r = await start(consumer, env);
    await until(r, '/healthz', (a) => a.status === 200, 'live');
    const waiting = await until(
      r,
      '/readyz',
      (a) => a.status === 503 && (a.body.checks as Json | undefined)?.stream === 'unavailable',
      'waiting for the stream',
    );
    expect(waiting.status).toBe(503);
    const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    try {
      await until(r, '/readyz', (a) => a.status === 200, 'ready once Redis answers');
      expect(r.child.exitCode).toBeNull();
      expect(await stop(r)).toBe(0);
    } finally {
      redis.kill('SIGTERM');
    }
  },
  180_000,
);
