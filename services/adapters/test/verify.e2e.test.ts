/**
 * The operator's self-check (launcher/src/verify.main.ts) run here against what is real on this
 * machine: Redis (REDIS_URL; CI runs one, skipped locally without it), S3 through an s3rver started
 * here, and embedded stores for the ports not given. Started the way the image starts it (from
 * dist/, `node --conditions=pylon-dist launcher/dist/role.main.js verify`), and through
 * `npm run verify` (tsx) for the failures. Limits are stated and generous for a busy 2-core
 * machine: a whole run 180 s, a closed port's red row and exit 1 within 60 s. Here (not under
 * launcher/) because s3rver is this package's test dependency.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { deleteRedisKeys } from '../src/redis/cleanup.redis.js';
import { deleteS3Prefix } from '../src/s3/cleanup.s3.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dist = createRequire(import.meta.url)(join(ROOT, 'scripts/dist.cjs')) as { isCurrent(): boolean };
const RUN_LIMIT_MS = 180_000;
const FAIL_LIMIT_MS = 60_000;
const REDIS = process.env.REDIS_URL;
const BUCKET = 'pylon-verify-test';
/** Credentials the output must never show. */
/** s3rver's one account; the secret is not checked (allowMismatchedSignatures), so a distinctive one shows any leak. */
const S3_KEY = 'S3RVER';
const S3_SECRET = 'verify-s3-secret-never-printed';

interface Outcome {
  code: number | null;
  out: string;
  ms: number;
}

function runVerify(command: string[], args: string[], env: Record<string, string>, limitMs: number): Promise<Outcome> {
  const started = Date.now();
  const child = spawn(command[0]!, [...command.slice(1), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`verify did not finish within ${limitMs} ms:\n${out}`));
    }, limitMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

const IMAGE = [process.execPath, '--conditions=pylon-dist', join(ROOT, 'launcher/dist/role.main.js'), 'verify'];
const NPM = ['npm', 'run', '-s', 'verify', '--'];

/** The table's row for `check`: its columns split on two or more spaces. */
function row(out: string, check: string): string[] | undefined {
  const table = out.slice(out.lastIndexOf('\nCHECK'));
  return table
    .split('\n')
    .find((l) => l.startsWith(`${check}  `))
    ?.split(/\s{2,}/);
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

let s3dir: string;
let s3: S3rver;
let s3Endpoint: string;

beforeAll(async () => {
  if (!dist.isCurrent()) {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.cjs')], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build failed: ${r.stderr}`);
  }
  s3dir = await mkdtemp(join(tmpdir(), 'pylon-verify-s3-'));
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: s3dir,
    silent: true,
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  s3Endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await s3?.close();
  await rm(s3dir, { recursive: true, force: true });
});

test(
  'from dist/ as the image runs it: Redis and S3 contracts pass, the scenario passes on embedded stores, the table says what was not given, everything is removed, no credential printed',
  async () => {
    const args = [...(REDIS ? ['--redis', REDIS] : []), '--s3', BUCKET, '--s3-endpoint', s3Endpoint];
    const r = await runVerify(IMAGE, args, { S3_ACCESS_KEY_ID: S3_KEY, S3_SECRET_ACCESS_KEY: S3_SECRET }, RUN_LIMIT_MS);
    expect([r.code, r.out]).toEqual([0, expect.stringContaining('PASSED: ')]);
    for (const check of [
      's3: reachable',
      's3: blobs contract',
      'scenario: telemetry exactly once',
      'scenario: document read back',
      'scenario: webhook delivered',
      'cleanup',
    ])
      expect([check, row(r.out, check)?.[2]]).toEqual([check, 'PASS']);
    if (REDIS) {
      for (const check of ['redis: reachable', 'redis: cache contract', 'redis: pub/sub contract', 'redis: rate-limit contract', 'redis: stream contract'])
        expect([check, row(r.out, check)?.[2]]).toEqual([check, 'PASS']);
      expect(row(r.out, 'scenario: telemetry exactly once')?.[1]).toMatch(/^redis:\/\/.*\(streams\) -> embedded \(chdb\)$/);
    } else {
      process.stderr.write('verify.e2e: REDIS_URL is not set, the Redis rows were not checked\n');
      expect(row(r.out, 'scenario: telemetry exactly once')?.[1]).toBe('embedded (lmdb) -> embedded (chdb)');
    }
    for (const port of ['kafka', 'mongo', 'clickhouse']) expect(row(r.out, port)?.slice(1, 3)).toEqual(['not given', 'SKIP']);
    expect(row(r.out, 'scenario: document read back')?.[1]).toBe('embedded (lmdb)');
    expect(row(r.out, 'scenario: telemetry exactly once')?.[4]).toContain('1000 plays in 5 player requests (one retried): 1000 in play_logs and in each of');
    // A row per step while it runs, timings in the table.
    expect(r.out).toMatch(/^> s3: blobs contract \(s3:\/\/pylon-verify-test\/pylon-verify-\w+\/ at http:\/\/127\.0\.0\.1:\d+\)$/m);
    expect(row(r.out, 's3: blobs contract')?.[3]).toMatch(/^\d+\.\d s$/);
    expect(r.out).not.toContain(S3_SECRET);
    expect(r.out).not.toContain(S3_KEY);
    // Nothing of the run is left: its S3 prefix and Redis keys are gone.
    const run = /run (\w+) /.exec(r.out)![1]!;
    const creds = { bucket: BUCKET, endpoint: s3Endpoint, accessKeyId: S3_KEY, secretAccessKey: S3_SECRET };
    expect(await deleteS3Prefix(creds, `pylon-verify-${run}/`)).toBe(0);
    if (REDIS) expect(await deleteRedisKeys(REDIS, `pylon-verify:${run}:`)).toBe(0);
  },
  RUN_LIMIT_MS + 30_000,
);

test(
  'npm run verify with a closed port for --redis: a red row naming the problem, exit 1, within 60 s; the password in the URL is never printed',
  async () => {
    const port = await freePort();
    const r = await runVerify(NPM, ['--redis', `redis://verify:redis-password-never-printed@127.0.0.1:${port}`, '--only', 'contracts'], {}, FAIL_LIMIT_MS);
    expect(r.code).toBe(1);
    const red = row(r.out, 'redis: reachable');
    expect(red?.slice(1, 3)).toEqual([`redis://127.0.0.1:${port}`, 'FAIL']);
    expect(red?.[4]).toMatch(/ECONNREFUSED|refused|unavailable|no answer/i);
    expect(r.out).toMatch(/^FAILED: \d+ passed, 1 failed/m);
    expect(r.out).not.toContain('redis-password-never-printed');
    expect(r.ms).toBeLessThan(FAIL_LIMIT_MS);
  },
  FAIL_LIMIT_MS + 10_000,
);

test('bad arguments are refused naming the problem (exit 2), before anything is contacted', async () => {
  const unknown = await runVerify(IMAGE, ['--redsi', 'redis://x'], {}, FAIL_LIMIT_MS);
  expect([unknown.code, unknown.out]).toEqual([2, expect.stringContaining("verify: unknown argument '--redsi'")]);
  const missing = await runVerify(IMAGE, ['--mongo'], {}, FAIL_LIMIT_MS);
  expect([missing.code, missing.out]).toEqual([2, expect.stringContaining('verify: --mongo needs a value')]);
  const invalid = await runVerify(IMAGE, ['--mongo', 'http://db:27017'], {}, FAIL_LIMIT_MS);
  expect([invalid.code, invalid.out]).toEqual([2, expect.stringContaining('MONGO_URL: a mongodb:// or mongodb+srv:// connection string')]);
});
