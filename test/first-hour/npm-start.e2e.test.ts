/**
 * The first hour of a new operator, as a test: `npm start` exactly as typed (progress while it
 * starts, no npx/pnpm layer, the banner with a key), every runnable example of the README and of the
 * docs pages, in the README's map order (readme-examples.ts), the one-line errors of a second
 * instance and of a port in use, and Ctrl-C ending it with exit 0. One server for the whole file;
 * readiness waits up to 120 s (a busy 2-core machine starts it in 30-40 s through tsx), the demo's
 * history up to 180 s, the examples up to 480 s.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, ROOT, userShellEnv } from '../../gateway/test/processes.js';
import { blockMarker, blocksRun, curlShim, docsBlocks, foreignHosts, hardCodedAddresses, readmeScript } from './readme-examples.js';

const READY_MS = 120_000;
// The files a reader brings to the examples (a 1x1 PNG, a 16x16 JPEG).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z',
  'base64',
);

let work: string;
let dataDir: string;
let port: number;
let legacyPort: number;
let server: ChildProcess;
let out = '';
let err = '';
let exited: Promise<number | null>;
let resetKey: string | undefined;

beforeAll(async () => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  // Inside the repository, like a reader's shell: `npm run admin -- ...` finds the project.
  work = mkdtempSync(join(ROOT, '.tmp', 'first-hour-'));
  dataDir = join(work, 'data');
  [port, legacyPort] = await Promise.all([freePort(), freePort()]);
  // detached: its own process group, so Ctrl-C can reach npm, its shell and the server as a terminal does.
  server = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    // No LOG_LEVEL or LOG_FILE: the console as a new operator sees it (issue 35, item 6).
    env: userShellEnv(process.env, { PORT: String(port), LEGACY_PORT: String(legacyPort), SIGNAGE_DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  exited = new Promise((resolve) => server.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + READY_MS;
  while (!/Sign-in .*\n/.test(out)) {
    if (server.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not start within ${READY_MS} ms:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, READY_MS + 10_000);

afterAll(async () => {
  if (server.exitCode === null && server.pid) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  rmSync(work, { recursive: true, force: true });
});

test('npm start prints its progress while starting, then the banner with the demo key', () => {
  const steps = ['Starting Pylon', 'opening stores', 'loading code', 'composing', 'seeding demo', 'listening', 'Pylon is running'];
  const at = steps.map((s) => out.indexOf(s));
  expect(at.every((i) => i >= 0)).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
  expect(out).toMatch(/API key {5}pyl_\S+/);
  expect(out).toContain(`REST        http://127.0.0.1:${port}/openapi.json`);
});

test('the server runs directly under npm: no npx or pnpm in the process tree', () => {
  const parents = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const tree: string[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      try {
        tree.push(readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ').trim());
      } catch {
        /* gone */
      }
      walk(child);
    }
  };
  walk(server.pid!);
  expect(tree.some((c) => c.includes('scripts/run.cjs start'))).toBe(true);
  expect(tree.filter((c) => /(^|\/)(npx|pnpm)(\.c?js)?(\s|$)|pnpm@\d/.test(c))).toEqual([]);
});

/** Today and two days ago (UTC), the range the analytics examples ask for: the demo's history is the last 3 days. */
function demoRange(): { start: string; end: string } {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { start: day(Date.now() - 2 * 86_400_000), end: day(Date.now()) };
}

test("every runnable README and docs example works verbatim against it, every page's blocks run, analytics answer with data", async () => {
  const blocks = docsBlocks(ROOT);
  for (const b of blocks.filter((x) => !x.skip))
    expect({ at: `${b.file}:${b.line}`, hosts: foreignHosts(b.body), hardCoded: hardCodedAddresses(b.body) }).toEqual({
      at: `${b.file}:${b.line}`,
      hosts: [],
      hardCoded: [],
    });
  const key = /API key {5}(pyl_\S+)/.exec(out)![1]!;
  // The demo sends its telemetry history in the background once it listens (after its media):
  // a reader arrives later than a test does, so wait (up to 180 s) until the analytics store has plays.
  const { start, end } = demoRange();
  const deadline = Date.now() + 180_000;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/analytics/mediaplaystats?startDate=${start}&endDate=${end}`, { headers: { 'x-service-apikey': key } });
    if (res.ok && ((await res.json()) as unknown[]).length > 0) break;
    if (Date.now() > deadline) throw new Error('the demo history did not reach the analytics store within 180 s');
    await new Promise((r) => setTimeout(r, 1000));
  }
  const bin = join(work, 'bin');
  mkdirSync(bin, { recursive: true });
  const realCurl = spawnSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'curl'), curlShim(realCurl));
  chmodSync(join(bin, 'curl'), 0o755);
  writeFileSync(join(work, 'logo.png'), PNG);
  writeFileSync(join(work, 'screen.jpg'), JPEG);
  const script = readmeScript(blocks, { port, legacyPort });
  writeFileSync(join(work, 'readme.sh'), script);
  const r = spawnSync('bash', [join(work, 'readme.sh')], {
    cwd: work,
    env: userShellEnv(process.env, { KEY: key, PATH: `${bin}:${process.env.PATH}`, SIGNAGE_DATA_DIR: dataDir }),
    encoding: 'utf8',
    timeout: 480_000,
  });
  // The admin CLI prints a new key once (as the docs show): a failure's transcript must not carry it into CI's log.
  const redact = (t: string) => t.replace(/\bpyl_[A-Za-z0-9_-]+/g, 'pyl_***');
  const tail = redact(`${r.stdout.slice(-3000)}\n--- stderr ---\n${r.stderr.slice(-3000)}`);
  if (r.status !== 0) throw new Error(`README examples failed (exit ${r.status}):\n${tail}`);
  expect(r.stdout).toContain('### README examples done');
  // Each page's runnable blocks, counted in the page and in what the script printed.
  const runnable: Record<string, number> = {};
  for (const b of blocks) if (!b.skip) runnable[b.file] = (runnable[b.file] ?? 0) + 1;
  expect(blocksRun(r.stdout)).toEqual(runnable);
  // The walkthrough reached the screen: its manifest names the uploaded image.
  expect(r.stdout).toMatch(/"now":\{/);
  // The analytics examples answer with the demo's data: plays in the GraphQL series, rows in every REST answer.
  const analytics = blocks.find((b) => !b.skip && b.body.includes('/analytics/playlogs'))!;
  const at = r.stdout.indexOf(`${blockMarker(analytics)}\n`);
  const answers = r.stdout.slice(at, r.stdout.indexOf('\n### ', at + 1));
  // (On the fixed March/May dates the examples had, GraphQL answered [], REST [] or zero-filled periods, the XML <dataset></dataset>.)
  expect(answers).toMatch(/"totalPlays":[1-9]/);
  expect(answers).toMatch(/"total_plays":[1-9]/);
  expect(answers).not.toMatch(/(^|[^\w"])\[\]|<dataset\s*\/>|<dataset><\/dataset>/);
  resetKey = /new API key .* for owner@demo\.example[^\n]*\nkey \(shown once, store it now\): (pyl_\S+)/.exec(r.stdout)?.[1];
}, 700_000);

test('the key `npm run admin -- reset-key` printed (README) works; a wrong guess at a schedule names the real problem', async () => {
  expect(resetKey).toMatch(/^pyl_/);
  const headers = { 'x-service-apikey': resetKey!, 'content-type': 'application/json' };
  expect((await fetch(`http://127.0.0.1:${port}/devices?take=1`, { headers })).status).toBe(200);
  const res = await fetch(`http://127.0.0.1:${port}/schedules`, { method: 'POST', headers, body: JSON.stringify({ name: 'x', devices: ['d1'] }) });
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { field: string; details: unknown[] } };
  expect(body.error).toMatchObject({ field: 'devices[0]', details: [{ field: 'devices[0]', in: 'body', message: 'devices[0] must be object' }] });
});

test('an API key sent as a bearer token: 401 saying to send it as X-Service-ApiKey (GraphQL and REST)', async () => {
  const bearer = { authorization: `Bearer ${resetKey!}`, 'content-type': 'application/json' };
  const gql = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: bearer, body: JSON.stringify({ query: '{ account { id } }' }) });
  expect(gql.status).toBe(401);
  const gqlBody = JSON.stringify(await gql.json());
  expect(gqlBody).toContain('send API keys as the X-Service-ApiKey header');
  expect(gqlBody).not.toContain(resetKey!);
  const rest = await fetch(`http://127.0.0.1:${port}/devices`, { headers: bearer });
  expect(rest.status).toBe(401);
  expect(((await rest.json()) as { error: { message: string } }).error.message).toContain('send API keys as the X-Service-ApiKey header');
});

test('a second npm start on the same data dir ends with one line naming the running one', () => {
  const r = spawnSync('npm', ['start'], {
    cwd: ROOT,
    env: userShellEnv(process.env, { PORT: '0', LEGACY_PORT: '0', SIGNAGE_DATA_DIR: dataDir }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status).not.toBe(0);
  const ours = r.stderr.split('\n').filter((l) => l && !/^npm (error|warn)/.test(l));
  expect(ours).toEqual([expect.stringMatching(/^Another Pylon \(process \d+\) is already running on the data dir .*SIGNAGE_DATA_DIR=/)]);
  expect(`${r.stdout}${r.stderr}`).not.toMatch(/"level"|\n\s+at /);
});

test('a port in use ends with one line naming the port, its setting and the fix', () => {
  const r = spawnSync('npm', ['start'], {
    cwd: ROOT,
    env: userShellEnv(process.env, { PORT: String(port), LEGACY_PORT: '0', SIGNAGE_DATA_DIR: join(work, 'other-data') }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status).not.toBe(0);
  const ours = r.stderr.split('\n').filter((l) => l && !/^npm (error|warn)/.test(l));
  expect(ours).toEqual([
    `Port ${port} (PORT) is already in use, by another Pylon or another server. Stop that process, or choose another port: PORT=${port + 1} npm start`,
  ]);
  expect(r.stdout).not.toContain('opening stores');
});

test('after the banner the console shows warnings and errors only, the request lines in the log file it names', () => {
  // Run after the README walkthrough: the demo's history upload, the simulator and every example have
  // written their lines by now (the first start wrote 1,540 request lines in 89 s to the console).
  const after = `${out.slice(out.indexOf('Pylon is running'))}${err}`;
  const lines = after.slice(after.indexOf('  Sign-in')).split('\n').slice(1);
  const belowWarn = lines.filter((l) => {
    if (!l.trim()) return false;
    try {
      return (JSON.parse(l) as { level: number }).level < 40;
    } catch {
      // Not a log line: only Node's own warnings may be printed besides them.
      return !/^\(node:\d+\) \w*Warning: /.test(l);
    }
  });
  // One comparison, so a run shows each defect: the log file named, no line below warn (the first five shown).
  expect({
    logsLine: after.includes(`  Logs        ${join(dataDir, 'pylon.log')}`),
    belowWarn: belowWarn.length,
    first: belowWarn.slice(0, 5).map((l) => l.slice(0, 160)),
  }).toEqual({ logsLine: true, belowWarn: 0, first: [] });
  expect(readFileSync(join(dataDir, 'pylon.log'), 'utf8')).toMatch(/"msg":"request"/);
});

test('Ctrl-C stops it cleanly: exit 0, no npm failure', async () => {
  // What a terminal does on Ctrl-C: SIGINT to the whole foreground process group.
  process.kill(-server.pid!, 'SIGINT');
  expect(await exited).toBe(0);
  expect(out).toContain('Pylon stopped');
  expect(`${out}${err}`).not.toMatch(/ELIFECYCLE|Lifecycle script|npm error/);
}, 30_000);
