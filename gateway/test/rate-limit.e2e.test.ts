/**
 * Rate limits (SECURITY.md brute force row): N+1 requests with one key get 429 with Retry-After on
 * GraphQL, REST and legacy, each in its own error format; a burst of failed authentications from
 * one address gets that address refused; with Redis as the limiter store, killing Redis mid-test
 * leaves requests limited by the in-memory insurance limiter, never answered 500.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createApiKey, type IdentityService } from '@pylon/identity';
import { harnessForTests, startHarness, type Harness } from './harness.js';

const freshKey = async (h: Harness, name: string) =>
  (await createApiKey((h.subgraphs.identity as unknown as IdentityService).repo, { accountId: 'demo-account', userId: 'demo-owner', name })).value;
const gql = (h: Harness, key: string) =>
  fetch(`${h.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': key },
    body: '{"query":"{ account { id } }"}',
  });

describe('in-memory limits', () => {
  const h = harnessForTests({ RATE_LIMIT_POINTS: '5', RATE_LIMIT_DURATION_SECONDS: '60', AUTH_FAILURE_POINTS: '4', AUTH_FAILURE_WINDOW_SECONDS: '60' });

  test('GraphQL: the 6th request of a key within the window is 429 RATE_LIMITED with Retry-After', async () => {
    const key = await freshKey(h, 'gql');
    for (let i = 0; i < 5; i++) expect((await gql(h, key)).status).toBe(200);
    const res = await gql(h, key);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await res.json()) as { errors: { message: string; extensions: { code: string; retryAfter: number } }[] };
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    // Other keys have their own budget.
    expect((await gql(h, await freshKey(h, 'other'))).status).toBe(200);
  });

  test('REST: the header and the api_key parameter count against the same key; 429 in the REST error shape', async () => {
    const key = await freshKey(h, 'rest');
    for (let i = 0; i < 5; i++) {
      const res = await fetch(i % 2 ? `${h.baseUrl}/account?api_key=${key}` : `${h.baseUrl}/account`, { headers: i % 2 ? {} : { 'x-service-apikey': key } });
      expect(res.status).toBe(200);
    }
    const res = await fetch(`${h.baseUrl}/account`, { headers: { 'x-service-apikey': key } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
  });

  test('legacy: 429 with Retry-After, in the requested format', async () => {
    const key = await freshKey(h, 'legacy');
    for (let i = 0; i < 5; i++) expect((await fetch(`${h.legacyUrl}/account?api_key=${key}`)).status).toBe(200);
    const res = await fetch(`${h.legacyUrl}/account?api_key=${key}&format=xml`);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.text()).toMatch(/<code>RATE_LIMITED<\/code>/);
  });

  // Runs last: it gets this test's own address (127.0.0.1) refused for the rest of the window.
  test('a burst of failed authentications from one address: 401s, then 429 for that address, valid keys included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await gql(h, `wrong-key-${i}-0123456789abcdef`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const blocked = await gql(h, await freshKey(h, 'valid'));
    expect(blocked.status).toBe(429);
    expect(((await blocked.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/failed authentication/);
    const legacy = await fetch(`${h.legacyUrl}/account?api_key=wrong-again-0123456789`);
    expect(legacy.status).toBe(429);
  });
});

describe('player API: failed registration keys per address (defaults: 30 per 300 s)', () => {
  const h = harnessForTests();

  test('40 unknown keys from one address: 401 up to the budget, then 429 + Retry-After, a right key included; API keys keep working', async () => {
    const created = await fetch(`${h.baseUrl}/devices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-apikey': h.key },
      body: JSON.stringify({ name: 'Brute target' }),
    });
    const { registration_key: rightKey } = (await created.json()) as { registration_key: string };
    expect(rightKey).toMatch(/^[0-9a-f]{32}$/);
    const ping = (key: string) => fetch(`${h.baseUrl}/player/${key}/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await ping(rightKey)).status).toBe(200);
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 40; i++) {
      last = await ping(`guess-${String(i).padStart(8, '0')}`);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses.slice(30)).toEqual(Array(10).fill(429));
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await last!.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    // Guessing learns nothing once blocked: the right key is refused the same way.
    const right = await ping(rightKey);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Separate counters: the address's API-key budget is untouched.
    expect((await gql(h, h.key)).status).toBe(200);
  });
});

const redisServer = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

if (redisServer) {
  describe('Redis limits with the in-memory insurance limiter', () => {
    let h: Harness;
    let redis: ChildProcess;
    beforeAll(async () => {
      const port = await freePort();
      // A Redis of this test's own, so killing it disturbs nothing else.
      redis = spawn(redisServer, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      for (;;) {
        const up = await new Promise<boolean>((resolve) => {
          const s = createServer();
          s.once('error', () => resolve(true));
          s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
        });
        if (up) break;
        if (Date.now() > deadline) throw new Error('redis-server did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
      h = await startHarness({ CACHE_DRIVER: 'redis', REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_POINTS: '4', RATE_LIMIT_DURATION_SECONDS: '60' });
    }, 60_000);
    afterAll(async () => {
      redis?.kill('SIGKILL');
      await h?.stop();
    });

    test('limits through Redis; then Redis is killed: still limited (insurance), never a 500', async () => {
      const key = await freshKey(h, 'redis');
      for (let i = 0; i < 4; i++) expect((await gql(h, key)).status).toBe(200);
      expect((await gql(h, key)).status).toBe(429);

      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      const other = await freshKey(h, 'after-redis-died');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await gql(h, other)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      const rest = await fetch(`${h.baseUrl}/account`, { headers: { 'x-service-apikey': other } });
      expect(rest.status).toBe(429);
    }, 60_000);
  });
} else if (process.env.CI) {
  test('redis-server is installed under CI', () => {
    throw new Error('redis-server not found; .ci/run installs it');
  });
} else {
  test.skip('Redis insurance limiter: needs redis-server on PATH', () => undefined);
}
