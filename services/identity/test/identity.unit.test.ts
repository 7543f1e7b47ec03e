/** Passwords, the OIDC documents adapter (expiry, consume, lookups, grant revocation) and revocation events, on a real LMDB store. */
import type { DocumentStore } from '@pylon/kit';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { hashPassword, passwordProblem, verifyPassword } from '../src/domain/passwords.js';
import { allows, requireRule } from '@pylon/kit';
import { policiesFor } from '../src/domain/roles.js';
import { IdentityRepository } from '../src/shared/identity.repository.js';
import { oidcAdapterFactory } from '../src/adapters/oidc.adapter.js';
import { loadOrCreateOAuthKeys } from '../src/features/oauth/oauth-keys.js';
import { parseSubject, subjectOf } from '../src/domain/oauth-settings.js';
import { recordRevocation, watchRevocations } from '../src/features/api-keys/revocations.js';

let store: DocumentStore;
beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-identity-');
});
afterAll(() => store.close());

describe('passwords', () => {
  test('scrypt with a per-user salt: same password, different hashes; verify is exact', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('anything', null)).toBe(false);
    expect(await verifyPassword('anything', 'not-a-hash')).toBe(false);
    expect(passwordProblem('short')).toMatch(/at least 10/);
  });
});

describe('access rules', () => {
  test('policies, Administrator, and all-of requirements', () => {
    const editor = { roles: ['Editor', 'API'], policies: policiesFor(['Editor', 'API']) };
    expect(allows(editor, 'Devices_Edit')).toBe(true);
    expect(allows(editor, 'Devices_Delete')).toBe(false);
    expect(allows(editor, ['Alerts_View', 'Devices_Edit'])).toBe(true);
    expect(allows(editor, ['Alerts_View', 'Devices_Delete'])).toBe(false);
    expect(allows(editor, 'Administrator')).toBe(false);
    expect(() => requireRule(editor, ['Alerts_View', 'Devices_Delete'])).toThrow(/Devices_Delete/);
    expect(() => requireRule(editor, 'Administrator')).toThrow(/owner or administrator/);
  });

  test('token subjects name account and user', () => {
    expect(parseSubject(subjectOf('acme', 'u-1'))).toEqual({ accountId: 'acme', userId: 'u-1' });
    expect(parseSubject('no-separator')).toBeNull();
  });
});

describe('OIDC documents adapter', () => {
  test('upsert/find, expiry honoured, consume marks, uid lookup for sessions, grant revocation', async () => {
    let now = 1_000_000_000_000;
    const factory = oidcAdapterFactory(store, () => now);
    const codes = factory('AuthorizationCode');
    const sessions = factory('Session');
    await codes.upsert('c1', { grantId: 'g1', scope: 'openid webapi', resources: { 'http://x:1/': 'webapi' } }, 60);
    await codes.upsert('c2', { grantId: 'g1' }, 60);
    await codes.upsert('c3', { grantId: 'g2' }, 60);
    await sessions.upsert('s1', { uid: 'uid-1', accountId: 'a:b' }, 3600);
    expect(await codes.find('c1')).toMatchObject({ grantId: 'g1', resources: { 'http://x:1/': 'webapi' } });
    expect(await sessions.findByUid('uid-1')).toMatchObject({ accountId: 'a:b' });
    expect(await codes.findByUid('uid-1')).toBeUndefined();

    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).toBe(Math.floor(now / 1000));

    await codes.revokeByGrantId('g1');
    expect(await codes.find('c1')).toBeUndefined();
    expect(await codes.find('c2')).toBeUndefined();
    expect(await codes.find('c3')).toBeDefined();

    now += 61_000;
    expect(await codes.find('c3')).toBeUndefined();
    expect(await sessions.find('s1')).toBeDefined();
    expect(await factory.sweep()).toBe(1);

    // Upserting again replaces the document (and its indexed fields).
    await sessions.upsert('s1', { uid: 'uid-2', accountId: 'a:b' }, 3600);
    expect(await sessions.findByUid('uid-1')).toBeUndefined();
    expect(await sessions.findByUid('uid-2')).toBeDefined();
  });

  test('signing keys are generated once and kept', async () => {
    const a = await loadOrCreateOAuthKeys(store);
    const b = await loadOrCreateOAuthKeys(store);
    expect(b.privateJwks.keys[0]!.kid).toBe(a.privateJwks.keys[0]!.kid);
    expect(a.publicJwks.keys[0]).not.toHaveProperty('d');
    expect(a.cookieKeys[0]!.length).toBeGreaterThanOrEqual(32);
  });
});

describe('revocation events', () => {
  test('a watcher sees revocations recorded after it started, once each', async () => {
    const repo = new IdentityRepository(store);
    const seen: string[] = [];
    const watcher = watchRevocations(
      repo,
      (hash) => {
        seen.push(hash);
      },
      { intervalMs: 60_000 },
    );
    await recordRevocation(repo, 'h1');
    await recordRevocation(repo, 'h2');
    await watcher.poll();
    await watcher.poll();
    expect(seen).toEqual(['h1', 'h2']);
    await recordRevocation(repo, 'h3');
    await watcher.poll();
    expect(seen).toEqual(['h1', 'h2', 'h3']);
    await watcher.close();
  });
});
