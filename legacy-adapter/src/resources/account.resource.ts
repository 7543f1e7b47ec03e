/** GET /account: the caller's account as the legacy account record. */
import { defineResource } from './resource.js';
import { toLegacyAccount, type AccountData, type LegacyAccount } from './account.record.js';

export const getAccount = defineResource<LegacyAccount>({
  method: 'get',
  path: '/account',
  operations: ['getAccount'],
  view: { root: 'account' },
  async handle({ run }) {
    const data = await run<{ account: AccountData }>('getAccount');
    return toLegacyAccount(data.account);
  },
});
