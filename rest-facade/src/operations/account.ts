/** GET/PUT /account onto Query.account / Mutation.updateAccount, GET /account/organizations onto Query.organizations. */
import { AppError, codeFromGraphQL } from '@pylon/kit';
import { snakeKeys } from '../case.js';
import { restFieldName } from '../errors.js';
import { recordAt, recordsAt } from './shape.js';
import type { RestOperation } from './types.js';

/** Names of the legacy account record that the generic snake_case rule does not produce. */
const ACCOUNT_RENAMES = { address1: 'address_1', address2: 'address_2' } as const;

export const getAccount: RestOperation = {
  variables: () => ({}),
  respond: (data) => ({ body: snakeKeys(recordAt(data, 'account'), ACCOUNT_RENAMES) }),
};

/** REST body property -> UpdateAccountInput field. */
const ACCOUNT_INPUT: Readonly<Record<string, string>> = {
  name: 'name',
  business_name: 'businessName',
  address_1: 'address1',
  address_2: 'address2',
  city: 'city',
  state: 'state',
  postal_code: 'postalCode',
  country: 'country',
  phone: 'phone',
  fax: 'fax',
  primary_contact_id: 'primaryContactId',
  secondary_contact_id: 'secondaryContactId',
  timezone: 'timezone',
};
const ACCOUNT_FIELDS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(ACCOUNT_INPUT).map(([rest, gql]) => [gql, rest]));

/**
 * A mutation payload with success false -> the REST error it stands for: its stable code (400 when
 * none), naming the body property at fault.
 */
export function payloadFailure(payload: Record<string, unknown>, fieldNames: Readonly<Record<string, string>>): AppError {
  const code = typeof payload.errorCode === 'string' ? codeFromGraphQL(payload.errorCode) : 'BAD_USER_INPUT';
  const field = typeof payload.errorField === 'string' ? restFieldName(payload.errorField, fieldNames) : undefined;
  return new AppError(code === 'INTERNAL' ? 'BAD_USER_INPUT' : code, typeof payload.error === 'string' ? payload.error : 'the request is invalid', field ? { field } : {});
}

export const updateAccount: RestOperation = {
  variables({ body }) {
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) {
      const field = ACCOUNT_INPUT[k];
      if (field) input[field] = v;
    }
    return { input };
  },
  respond(data) {
    const payload = recordAt(data, 'updateAccount');
    if (payload.success !== true) throw payloadFailure(payload, ACCOUNT_FIELDS);
    return { body: snakeKeys(recordAt(payload, 'account'), ACCOUNT_RENAMES) };
  },
  fieldNames: { ...ACCOUNT_FIELDS, input: 'body' },
};

export const listOrganizations: RestOperation = {
  variables: () => ({}),
  respond: (data) => ({ body: recordsAt(data, 'organizations').map((o) => snakeKeys(o, ACCOUNT_RENAMES)) }),
};
