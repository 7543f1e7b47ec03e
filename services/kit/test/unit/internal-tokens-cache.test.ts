import { InternalTokens, PRINCIPAL_CACHE_BOUNDS, type Principal } from '../../src/auth/principal.js';

const principal = (i: number, name: string): Principal => ({
  accountId: 'acc',
  userId: `u${i}`,
  userName: name,
  roles: ['API'],
  policies: [],
  isOwner: false,
  via: 'api-key',
});

describe('the internal-token caches are bounded by entries and bytes (issue 34, M1)', () => {
  test('large principals: the estimated bytes stay within the budget, the newest are kept', async () => {
    const tokens = new InternalTokens('s'.repeat(32));
    // ~100 KB names: 16 MiB holds a few dozen, not 10,000.
    const name = 'n'.repeat(100_000);
    for (let i = 0; i < 100; i++) await tokens.verify(await tokens.sign(principal(i, name)));
    expect(tokens.cached.bytes).toBeLessThanOrEqual(2 * PRINCIPAL_CACHE_BOUNDS.maxBytes);
    expect(tokens.cached.entries).toBeLessThan(2 * 100);
    const last = await tokens.sign(principal(99, name));
    expect((await tokens.verify(last)).userId).toBe('u99');
  });

  test('small principals: at most maxEntries each', async () => {
    const tokens = new InternalTokens('s'.repeat(32));
    for (let i = 0; i < PRINCIPAL_CACHE_BOUNDS.maxEntries + 50; i++) await tokens.sign(principal(i, 'n'));
    expect(tokens.cached.entries).toBe(PRINCIPAL_CACHE_BOUNDS.maxEntries);
  });
});
