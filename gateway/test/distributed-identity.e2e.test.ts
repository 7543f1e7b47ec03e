/**
 * Distributed mode, identity side: the identity process serves the OAuth server ({auth_url} is its
 * own URL) and checks keys and tokens for the gateway process; a bearer token obtained there works
 * through the gateway, and a key revoked through the gateway is refused at once when the processes
 * share Redis (the revocation is announced on pub/sub to the gateway's cache). The gateway serves
 * /mcp too, naming the identity process as the authorization server.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createApiKey, createIdentitySubgraph, setPassword } from '@pylon/identity';
import { InternalTokens } from '@pylon/kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { accessTokenFor } from './oauth.helpers.js';
import { freePort, gatewayEnv, Processes, REDIS_URL, redisAnswers } from './processes.js';

const secret = randomBytes(32).toString('hex');
const redisUrl = REDIS_URL;
let procs: Processes;
let identityUrl: string;
let gatewayUrl: string;
let redis = false;
let spareKey: { id: string; value: string };
const OWNER = { username: 'owner@dist.example', password: 'dist-owner-password' };

beforeAll(async () => {
  procs = await Processes.inTempDir('dist-id', { secret, logLevel: 'error' });
  redis = await redisAnswers(redisUrl);

  const store = await createLmdbDocumentStore({ path: join(procs.dataDir, 'documents') });
  const identity = createIdentitySubgraph({ documents: store, cache: createMemoryCache(), tokens: new InternalTokens(secret), principalCacheSeconds: 30 });
  const { createAccount, createUser } = await import('@pylon/identity');
  await createAccount(identity.repo, { id: 'dist', name: 'Distributed Co' });
  await createUser(identity.repo, { accountId: 'dist', id: 'dist-owner', username: OWNER.username, roles: ['Owner', 'API'] });
  await setPassword(identity.repo, 'dist', 'dist-owner', OWNER.password);
  spareKey = await createApiKey(identity.repo, { accountId: 'dist', userId: 'dist-owner', name: 'to revoke' }).then((k) => ({ id: k.key.id, value: k.value }));
  await store.close();

  const [pi, pg, dead] = await Promise.all([freePort(), freePort(), freePort()]);
  const shared: Record<string, string> = redis ? { CACHE_DRIVER: 'redis', REDIS_URL: redisUrl } : {};
  identityUrl = await procs.start('services/identity/src/main.ts', { ...shared, OAUTH_ISSUER: `http://127.0.0.1:${pi}`, REVOCATION_POLL_MS: '200' }, pi);
  const nowhere = `http://127.0.0.1:${dead}`;
  gatewayUrl = await procs.start(
    'gateway/src/gateway.main.ts',
    gatewayEnv(nowhere, { ...(redis ? { REDIS_URL: redisUrl } : {}), IDENTITY_URL: identityUrl, SUBGRAPH_TIMEOUT_MS: '2000' }),
    pg,
  );
}, 120_000);

afterAll(async () => {
  await procs?.dispose();
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

test('the gateway serves /mcp: its metadata names the identity process as issuer; a token from there lists the tools', async () => {
  // The gateway reads the issuer from the identity process's discovery: 503 until it has (within 10 s).
  const deadline = Date.now() + 10_000;
  let metadata = await fetch(`${gatewayUrl}/.well-known/oauth-protected-resource/mcp`);
  while (metadata.status === 503 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    metadata = await fetch(`${gatewayUrl}/.well-known/oauth-protected-resource/mcp`);
  }
  expect(await metadata.json()).toMatchObject({ resource: gatewayUrl, authorization_servers: [identityUrl] });
  const anonymous = await fetch(`${gatewayUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource/mcp", scope="webapi"`);
  const token = await accessTokenFor(identityUrl, OWNER);
  const client = new Client({ name: 'pylon-dist-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gatewayUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['find_screens', 'start_override', 'cancel_override']));
  } finally {
    await client.close();
  }
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
