/**
 * Distributed mode, identity side: the identity process serves the OAuth server ({auth_url} is its
 * own URL) and checks keys and tokens for the gateway process; a bearer token obtained there works
 * through the gateway, and a key revoked through the gateway is refused at once when the processes
 * share Redis (the revocation is announced on pub/sub to the gateway's cache).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLmdbDocumentStore } from '@pylon/kit/adapters/documents.lmdb';
import { createMemoryCache } from '@pylon/kit/adapters/cache.memory';
import { createRedisCache } from '@pylon/kit/adapters/cache.redis';
import { createApiKey, createIdentitySubgraph, setPassword } from '@pylon/identity';
import { InternalTokens } from '@pylon/kit';
import { accessTokenFor } from './oauth.helpers.js';

const root = new URL('../../', import.meta.url).pathname;
const secret = randomBytes(32).toString('hex');
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const children: ChildProcess[] = [];
let dataDir: string;
let identityUrl: string;
let gatewayUrl: string;
let redis = false;
let spareKey: { id: string; value: string };
const OWNER = { username: 'owner@dist.example', password: 'dist-owner-password' };

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

async function start(entry: string, env: Record<string, string>, port: number): Promise<string> {
  const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, entry)], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', SIGNAGE_INTERNAL_SECRET: secret, SIGNAGE_DATA_DIR: dataDir },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return `http://127.0.0.1:${port}`;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${entry} did not start`);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pylon-dist-id-'));
  const probe = createRedisCache({ url: redisUrl, commandTimeoutMs: 1000 });
  redis = await probe.ping().then(() => true, () => false);
  await probe.close();

  const store = await createLmdbDocumentStore({ path: join(dataDir, 'documents') });
  const identity = createIdentitySubgraph({ documents: store, cache: createMemoryCache(), tokens: new InternalTokens(secret), principalCacheSeconds: 30 });
  const { createAccount, createUser } = await import('@pylon/identity');
  await createAccount(identity.repo, { id: 'dist', name: 'Distributed Co' });
  await createUser(identity.repo, { accountId: 'dist', id: 'dist-owner', username: OWNER.username, roles: ['Owner', 'API'] });
  await setPassword(identity.repo, 'dist', 'dist-owner', OWNER.password);
  spareKey = await createApiKey(identity.repo, { accountId: 'dist', userId: 'dist-owner', name: 'to revoke' }).then((k) => ({ id: k.key.id, value: k.value }));
  await store.close();

  const [pi, pg, dead] = await Promise.all([freePort(), freePort(), freePort()]);
  const shared: Record<string, string> = redis ? { CACHE_DRIVER: 'redis', REDIS_URL: redisUrl } : {};
  identityUrl = await start('services/identity/src/main.ts', { ...shared, OAUTH_ISSUER: `http://127.0.0.1:${pi}`, REVOCATION_POLL_MS: '200' }, pi);
  const nowhere = `http://127.0.0.1:${dead}`;
  gatewayUrl = await start('gateway/src/gateway.main.ts', {
    ...(redis ? { REDIS_URL: redisUrl } : {}),
    IDENTITY_URL: identityUrl, DEVICES_URL: nowhere, CONTENT_URL: nowhere, SCHEDULING_URL: nowhere, DATATABLES_URL: nowhere, ANALYTICS_URL: nowhere, SUBGRAPH_TIMEOUT_MS: '2000',
  }, pg);
}, 120_000);

afterAll(async () => {
  await Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
  })));
  await rm(dataDir, { recursive: true, force: true });
});

const gql = (query: string, headers: Record<string, string>) =>
  fetch(`${gatewayUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });

test('the identity process serves the OAuth server; its token works through the gateway process', async () => {
  const discovery = (await (await fetch(`${identityUrl}/.well-known/openid-configuration`)).json()) as { issuer: string };
  expect(discovery.issuer).toBe(identityUrl);
  const token = await accessTokenFor(identityUrl, OWNER);
  const res = await gql('{ permissions { isAdministrator } account { name } }', { authorization: `Bearer ${token}` });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: unknown }).data).toEqual({ permissions: { isAdministrator: true }, account: { name: 'Distributed Co' } });
  const forged = await gql('{ account { name } }', { authorization: `Bearer ${token.slice(0, -4)}AAAA` });
  expect(forged.status).toBe(401);
}, 30_000);

test('a key revoked through the gateway stops working at the gateway (shared Redis)', async () => {
  if (!redis) {
    if (process.env.CI) throw new Error(`Redis at ${redisUrl} is needed under CI`);
    return;
  }
  expect((await gql('{ account { name } }', { 'x-service-apikey': spareKey.value })).status).toBe(200);
  const revoke = await gql(`mutation { revokeApiKey(id: "${spareKey.id}") { success } }`, { 'x-service-apikey': spareKey.value });
  expect(((await revoke.json()) as { data: { revokeApiKey: { success: boolean } } }).data.revokeApiKey.success).toBe(true);
  const deadline = Date.now() + 5000;
  let status = 200;
  while (status !== 401 && Date.now() < deadline) {
    status = (await gql('{ account { name } }', { 'x-service-apikey': spareKey.value })).status;
    if (status !== 401) await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe(401);
}, 30_000);
