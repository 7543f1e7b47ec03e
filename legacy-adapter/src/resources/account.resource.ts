/** GET /account: the caller's account as the legacy account record. */
import { defineResource } from './resource.js';
import { toLegacyAccount, type LegacyAccount } from './account.record.js';

export const getAccount = defineResource<LegacyAccount>({
  method: 'get',
  path: '/account',
  operations: ['getAccount'],
  view: { root: 'account' },
  async handle({ run }) {
    const data = await run('getAccount');
    // A null account fails the run (its error), so the answer holds one.
    return toLegacyAccount(data.account!);
  },
});
