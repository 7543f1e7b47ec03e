/** GET /account onto Query.account. */
import { snakeKeys } from '../case.js';
import { recordAt } from './shape.js';
import type { RestOperation } from './types.js';

/** Names of the legacy account record that the generic snake_case rule does not produce. */
const ACCOUNT_RENAMES = { address1: 'address_1', address2: 'address_2' } as const;

export const getAccount: RestOperation = {
  variables: () => ({}),
  respond: (data) => ({ body: snakeKeys(recordAt(data, 'account'), ACCOUNT_RENAMES) }),
};
