/**
 * Identity's use cases through their public functions, on a real embedded store and memory cache:
 * accounts, users and roles, API keys and the authenticator, bootstrap. Each refusal names its
 * field; nothing reads or writes across accounts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, type Cache, type DocumentStore } from '@pylon/kit';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { IdentityRepository } from '../../src/shared/identity.repository.js';
import { createAccount, createUser, updateAccount } from '../../src/features/accounts/accounts.js';
import { ApiKeyAuthenticator, createApiKey, hashKey, principalCacheKey, revokeApiKey } from '../../src/features/api-keys/api-keys.js';
import { bootstrapFirstAccount } from '../../src/features/accounts/bootstrap.js';

let dir: string;
let store: DocumentStore;
let repo: IdentityRepository;
let cache: Cache;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-identity-uc-'));
  store = await createLmdbDocumentStore({ path: dir });
  repo = new IdentityRepository(store);
  cache = createMemoryCache();
  await createAccount(repo, { id: 'acc-a', name: 'A' });
  await createAccount(repo, { id: 'acc-b', name: 'B' });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The AppError a call fails with: code and field. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; field: unknown }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return { code: e.code, field: e.details.field };
}

const ADMIN = { roles: ['Administrator'] };

describe('accounts', () => {
  test('an id must be plain and unique; the time zone must exist', async () => {
    expect(await refusal(createAccount(repo, { id: 'a b', name: 'x' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(await refusal(createAccount(repo, { id: 'acc-a', name: 'again' }))).toEqual({ code: 'DUPLICATE_KEY', field: 'id' });
    expect(await refusal(createAccount(repo, { name: 'x', timezone: 'Mars/Olympus' }))).toMatchObject({ field: 'timezone' });
    expect((await createAccount(repo, { name: 'Zoned', timezone: 'Europe/Paris' })).timezone).toBe('Europe/Paris');
  });

  test('update: absent stays, null clears, a contact must be a user of this account', async () => {
    await updateAccount(repo, 'acc-a', { city: 'Lyon', phone: '123' });
    const cleared = await updateAccount(repo, 'acc-a', { city: null });
    expect(cleared).toMatchObject({ name: 'A', city: null, phone: '123' });
    expect(await refusal(updateAccount(repo, 'acc-a', { name: null }))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'name' });
    const b = await createUser(repo, { accountId: 'acc-b', username: 'bob', roles: ['Viewer'] });
    expect(await refusal(updateAccount(repo, 'acc-a', { primaryContactId: b.id }))).toEqual({ code: 'BAD_USER_INPUT', field: 'primaryContactId' });
    const a = await createUser(repo, { accountId: 'acc-a', username: 'amy', roles: ['Viewer'] });
    expect((await updateAccount(repo, 'acc-a', { primaryContactId: a.id })).primaryContactId).toBe(a.id);
  });
});

describe('users', () => {
  test('refusals name the field: username, roles, email, password, orgId', async () => {
    const user = (over: Record<string, unknown>) => createUser(repo, { accountId: 'acc-a', username: 'valid.name', roles: ['Viewer'], ...over });
    expect(await refusal(user({ username: 'x' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'username' });
    expect(await refusal(user({ roles: ['Wizard'] }))).toEqual({ code: 'BAD_USER_INPUT', field: 'roles' });
    expect(await refusal(user({ email: 'not-an-address' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'email' });
    expect(await refusal(user({ password: 'short' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'password' });
    expect(await refusal(user({ orgId: 'org-of-nobody' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'orgId' });
  });

  test('usernames are unique case-insensitively; only an owner grants Owner', async () => {
    await createUser(repo, { accountId: 'acc-a', username: 'Carol', roles: ['Viewer'] });
    expect(await refusal(createUser(repo, { accountId: 'acc-a', username: 'carol', roles: ['Viewer'] }))).toEqual({ code: 'DUPLICATE_KEY', field: 'username' });
    expect(await refusal(createUser(repo, { accountId: 'acc-a', username: 'boss', roles: ['Owner'] }, ADMIN))).toEqual({ code: 'FORBIDDEN', field: 'roles' });
    const owner = await createUser(repo, { accountId: 'acc-a', username: 'boss', roles: ['Owner'] }, { roles: ['Owner'] });
    expect(owner.roles).toEqual(['Owner']);
  });
});

describe('API keys', () => {
  async function keyFor(accountId: string, roles: string[], expiresAt?: string) {
    const user = await createUser(repo, { accountId, username: `u-${accountId}-${roles.join('-')}`, roles });
    return { user, ...(await createApiKey(repo, { accountId, userId: user.id, name: 'k', ...(expiresAt ? { expiresAt } : {}) })) };
  }
  const authenticator = (now = () => Date.now()) => new ApiKeyAuthenticator({ repo, cache, cacheTtlSeconds: 60, now });

  test('the value is returned once, stored only as its hash, and authenticates as its user', async () => {
    const { user, key, value } = await keyFor('acc-a', ['Editor', 'API']);
    expect(value).toMatch(/^pyl_/);
    expect(key).toMatchObject({ hash: hashKey(value), prefix: value.slice(0, 8) });
    expect(JSON.stringify(key)).not.toContain(value);
    expect(await authenticator().authenticate(value)).toMatchObject({ accountId: 'acc-a', userId: user.id, roles: ['Editor', 'API'], via: 'api-key' });
    expect(await authenticator().authenticate(`${value}x`)).toBeNull();
  });

  test('a user without the API role, an expired key and a revoked key do not authenticate', async () => {
    const noApi = await keyFor('acc-a', ['Viewer']);
    expect(await authenticator().authenticate(noApi.value)).toBeNull();
    const soon = new Date(Date.now() + 60_000).toISOString();
    const expiring = await keyFor('acc-b', ['Viewer', 'API'], soon);
    expect(await authenticator().authenticate(expiring.value)).not.toBeNull();
    expect(await authenticator(() => Date.now() + 120_000).authenticate(expiring.value)).toBeNull();
    const live = await keyFor('acc-a', ['Editor', 'API']);
    expect(await authenticator().authenticate(live.value)).not.toBeNull();
    await revokeApiKey({ repo, cache }, 'acc-a', live.key.id);
    expect(await cache.get(principalCacheKey(live.key.hash))).toBeUndefined();
    expect(await authenticator().authenticate(live.value)).toBeNull();
  });

  test("expiry must lie ahead; another account's key or user reads as not found", async () => {
    const user = await createUser(repo, { accountId: 'acc-a', username: 'dave', roles: ['API'] });
    expect(await refusal(createApiKey(repo, { accountId: 'acc-a', userId: user.id, name: 'k', expiresAt: '2001-01-01T00:00:00Z' }))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'expiresAt',
    });
    expect(await refusal(createApiKey(repo, { accountId: 'acc-b', userId: user.id, name: 'k' }))).toEqual({ code: 'NOT_FOUND', field: 'userId' });
    const { key } = await createApiKey(repo, { accountId: 'acc-a', userId: user.id, name: 'k' });
    expect(await refusal(revokeApiKey({ repo, cache }, 'acc-b', key.id))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('bootstrap', () => {
  test('creates the account, its owner and the key once; a second run changes nothing', async () => {
    const input = { apiKey: 'bootstrap-key-0123456789abcdef', accountId: 'acc-boot', accountName: 'Boot', ownerUsername: 'root' };
    expect(await bootstrapFirstAccount(repo, input)).toEqual({ created: true, accountId: 'acc-boot' });
    expect(await bootstrapFirstAccount(repo, input)).toEqual({ created: false, accountId: 'acc-boot' });
    const principal = await new ApiKeyAuthenticator({ repo, cache, cacheTtlSeconds: 60 }).authenticate(input.apiKey);
    expect(principal).toMatchObject({ accountId: 'acc-boot', userName: 'root', isOwner: true });
    await expect(bootstrapFirstAccount(repo, { ...input, apiKey: 'another-bootstrap-key-0123456789', accountId: 'acc-a' })).rejects.toThrow(/another account/);
  });
});
