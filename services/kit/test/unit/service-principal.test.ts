/**
 * The internal caller one process signs to look something up in another for one account
 * (servicePrincipal, auth/principal.ts): it carries that account, `service:NAME`, the policies it
 * was given and nothing more, survives signing and verifying unchanged, and is refused whatever
 * else a root field asks for.
 */
import { guardQuery, InternalTokens, isDevicePrincipal, servicePrincipal } from '../../src/index.js';

test('signed and verified, it is the same principal: one account, the given policies, not an owner', async () => {
  const tokens = new InternalTokens('s'.repeat(32));
  const p = servicePrincipal('acc-1', 'template-check', 'template check', ['DataTables_View']);
  const seen = await tokens.verify(await tokens.sign(p));
  expect(seen).toEqual({
    accountId: 'acc-1',
    userId: 'service:template-check',
    userName: 'template check',
    roles: [],
    policies: ['DataTables_View'],
    isOwner: false,
    via: 'internal',
  });
  expect(isDevicePrincipal(seen, 'template-check')).toBe(false);
});

test('it may read what its policies allow and nothing else', () => {
  const reader = servicePrincipal('acc-1', 'player-ingestion', 'player ingestion', ['Files_View']);
  expect(() => guardQuery(reader, 'media')).not.toThrow();
  expect(() => guardQuery(reader, 'device')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  expect(() => guardQuery(reader, 'dataTables')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
});
