/** GET /account: the caller's account as the legacy account record. */
import { resource } from './resource.js';
import { toLegacyAccount } from './account.record.js';

// A null account fails the run (its error), so the answer holds one.
export const getAccount = resource('GET /account', 'getAccount', { root: 'account' }, async ({ call }) => toLegacyAccount((await call()).account!));
