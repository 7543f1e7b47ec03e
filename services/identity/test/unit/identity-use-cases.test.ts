/**
 * Identity's use cases through their public functions, on a real embedded store and memory cache:
 * accounts, users and roles, API keys and the authenticator, bootstrap. Each refusal names its
 * field; nothing reads or writes across accounts.
 */
import { AppError, type Cache, type DocumentStore } from '@pylon/kit';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { IdentityRepository } from '../../src/shared/identity.repository.js';
import { organizationRecord } from '../fixtures/records.js';
import { createAccount, createUser, updateAccount } from '../../src/features/accounts/accounts.js';
import { ApiKeyAuthenticator, createApiKey, hashKey, principalCacheKey, revokeApiKey } from '../../src/features/api-keys/api-keys.js';
import { bootstrapFirstAccount } from '../../src/features/accounts/bootstrap.js';
import { patchUser, updateUser } from '../../src/features/accounts/update-user.js';
import { credentialChecker } from '../../src/features/api-keys/credential-check.js';
import { BearerAuthenticator } from '../../src/features/oauth/bearer.js';
import { API_SCOPE, subjectOf } from '../../src/domain/oauth-settings.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

let store: DocumentStore;
let repo: IdentityRepository;
let cache: Cache;
beforeEach(async () => {
  store = await createScratchLmdbStore('pylon-identity-uc-');
  repo = new IdentityRepository(store);
  cache = createMemoryCache();
  await createAccount(repo, { id: 'acc-a', name: 'A' });
  await createAccount(repo, { id: 'acc-b', name: 'B' });
});
afterEach(() => store.close());

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

describe('updateUser', () => {
  // Actors as the resolvers pass them (ctx.principal): account, user id, roles.
  const actor = (u: { accountId: string; id: string; roles: string[] }) => ({ accountId: u.accountId, userId: u.id, roles: u.roles });
  const make = (username: string, roles: string[], accountId = 'acc-a') => createUser(repo, { accountId, username, roles });
  const deps = () => ({ repo, cache });

  test('changes the given fields only; bad input names the field; nothing given changes nothing', async () => {
    const admin = await make('admin', ['Administrator']);
    const ed = await make('ed', ['Editor', 'API']);
    const org = await repo.addOrganization('acc-a', organizationRecord('North'));
    const changed = await updateUser(deps(), actor(admin), ed.id, { firstName: ' Ed ', roles: ['Manager', 'API'], orgId: org.id });
    expect(changed).toMatchObject({ firstName: 'Ed', lastName: null, roles: ['Manager', 'API'], orgId: org.id, username: 'ed' });
    expect(await updateUser(deps(), actor(admin), ed.id, { orgId: null, lastName: 'Smith' })).toMatchObject({
      orgId: null,
      lastName: 'Smith',
      roles: ['Manager', 'API'],
    });
    for (const [input, field] of [
      [{ roles: ['Wizard'] }, 'roles'],
      [{ roles: ['API'] }, 'roles'],
      [{ email: 'nope' }, 'email'],
      [{ orgId: 'org-of-nobody' }, 'orgId'],
      [{ firstName: 'x'.repeat(201) }, 'firstName'],
    ] as const) {
      expect(await refusal(updateUser(deps(), actor(admin), ed.id, input))).toEqual({ code: 'BAD_USER_INPUT', field });
    }
    expect((await updateUser(deps(), actor(admin), ed.id, {})).updatedAt).toBe((await repo.getUser('acc-a', ed.id)).updatedAt);
  });

  test('only an owner grants or removes Owner or changes an owner; the last enabled owner stays; nobody disables themselves', async () => {
    const owner = await make('olga', ['Owner']);
    const admin = await make('adam', ['Administrator']);
    const ed = await make('edna', ['Editor']);
    expect(await refusal(updateUser(deps(), actor(admin), ed.id, { roles: ['Owner'] }))).toEqual({ code: 'FORBIDDEN', field: 'roles' });
    expect(await refusal(updateUser(deps(), actor(admin), owner.id, { disabled: true }))).toEqual({ code: 'FORBIDDEN', field: 'id' });
    expect(await refusal(updateUser(deps(), actor(admin), owner.id, { firstName: 'O' }))).toEqual({ code: 'FORBIDDEN', field: 'id' });
    expect(await refusal(updateUser(deps(), actor(admin), admin.id, { disabled: true }))).toEqual({ code: 'UNPROCESSABLE', field: 'disabled' });
    // The last enabled owner: neither demoted nor disabled (by themselves or by anyone).
    expect(await refusal(updateUser(deps(), actor(owner), owner.id, { roles: ['Administrator'] }))).toEqual({ code: 'UNPROCESSABLE', field: 'roles' });
    const second = await updateUser(deps(), actor(owner), ed.id, { roles: ['Owner'] });
    expect(second.roles).toEqual(['Owner']);
    await updateUser(deps(), actor(owner), second.id, { disabled: true });
    expect(await refusal(updateUser(deps(), actor(owner), owner.id, { roles: ['Viewer'] }))).toEqual({ code: 'UNPROCESSABLE', field: 'roles' });
    // With a second enabled owner, one of them may go.
    await updateUser(deps(), actor(owner), second.id, { disabled: false });
    expect((await updateUser(deps(), actor(second), owner.id, { disabled: true })).disabled).toBe(true);
    expect(await refusal(updateUser(deps(), actor(second), second.id, { roles: ['Administrator'] }))).toEqual({ code: 'UNPROCESSABLE', field: 'roles' });
    // An administrator may change administrators and below, themselves included.
    expect((await updateUser(deps(), actor(admin), admin.id, { roles: ['Manager'] })).roles).toEqual(['Manager']);
  });

  test("another account's user reads as not found, whatever the caller's roles", async () => {
    const ownerA = await make('ann', ['Owner']);
    const bob = await make('bob', ['Viewer'], 'acc-b');
    expect(await refusal(updateUser(deps(), actor(ownerA), bob.id, { disabled: true }))).toEqual({ code: 'NOT_FOUND', field: undefined });
    expect(await refusal(patchUser(deps(), actor(ownerA), bob.id, [{ op: 'replace', path: '/disabled', value: true }]))).toMatchObject({ code: 'NOT_FOUND' });
    expect((await repo.getUser('acc-b', bob.id)).disabled).toBeUndefined();
  });

  test('disabling stops the API key at once, although its principal was cached; the live stream and bearer tokens refuse too; enabling lets it back', async () => {
    const owner = await make('owen', ['Owner']);
    const ci = await make('ci', ['Editor', 'API']);
    const { key, value } = await createApiKey(repo, { accountId: 'acc-a', userId: ci.id, name: 'ci' });
    const auth = new ApiKeyAuthenticator({ repo, cache, cacheTtlSeconds: 3600 });
    const principal = (await auth.authenticate(value))!;
    expect(principal).toMatchObject({ userId: ci.id, roles: ['Editor', 'API'] });
    expect(await cache.get(principalCacheKey(key.hash))).toBeDefined();
    await updateUser(deps(), actor(owner), ci.id, { disabled: true });
    expect(await auth.authenticate(value)).toBeNull();
    // The other processes hear of it as of a revoked key (revocation events by the key's hash).
    expect((await repo.revocationsSince('2000-01-01T00:00:00Z')).map((r) => r.hash)).toContain(key.hash);
    expect(await credentialChecker(repo, { memoMs: 0 })(principal)).toBeNull();
    // An access token (a JWT signed as the OAuth server signs them) of the disabled user: refused on its next look-up.
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const bearer = new BearerAuthenticator({ repo, cache: createMemoryCache(), cacheTtlSeconds: 30 });
    const site = { issuer: 'https://id.test', audience: 'https://api.test', clientId: 'pylon-public' };
    bearer.configure({ ...site, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] } });
    const token = await new SignJWT({ scope: API_SCOPE, client_id: site.clientId })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(site.issuer)
      .setAudience(site.audience)
      .setSubject(subjectOf('acc-a', ci.id))
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    expect(await bearer.authenticate(token)).toBeNull();
    await updateUser(deps(), actor(owner), ci.id, { disabled: false });
    expect(await auth.authenticate(value)).toMatchObject({ userId: ci.id });
    expect(await bearer.authenticate(token)).toMatchObject({ userId: ci.id, via: 'bearer' });
    // A demotion reaches the cached principal at once too.
    await updateUser(deps(), actor(owner), ci.id, { roles: ['Viewer', 'API'] });
    expect((await auth.authenticate(value))?.roles).toEqual(['Viewer', 'API']);
  });

  test('patchUser: JSON Patch over the writable fields, read-only and unknown paths named, then the same rules', async () => {
    const owner = await make('pat', ['Owner']);
    const vi = await make('vi', ['Viewer']);
    const patched = await patchUser(deps(), actor(owner), vi.id, [
      { op: 'replace', path: '/roles', value: ['Editor'] },
      { op: 'add', path: '/firstName', value: 'Vi' },
      { op: 'replace', path: '/disabled', value: true },
    ]);
    expect(patched).toMatchObject({ roles: ['Editor'], firstName: 'Vi', disabled: true });
    expect(await refusal(patchUser(deps(), actor(owner), vi.id, [{ op: 'replace', path: '/username', value: 'x' }]))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'operations[0].path',
    });
    expect(await refusal(patchUser(deps(), actor(owner), vi.id, [{ op: 'replace', path: '/passwordHash', value: 'x' }]))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'operations[0].path',
    });
    expect(await refusal(patchUser(deps(), actor(owner), vi.id, [{ op: 'replace', path: '/disabled', value: 'yes' }]))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'disabled',
    });
    expect(await refusal(patchUser(deps(), actor(owner), owner.id, [{ op: 'replace', path: '/disabled', value: true }]))).toEqual({
      code: 'UNPROCESSABLE',
      field: 'disabled',
    });
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
