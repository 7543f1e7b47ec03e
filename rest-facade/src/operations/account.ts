/** GET/PUT /account onto Query.account / Mutation.updateAccount, GET /account/organizations onto Query.organizations. */
import { RECORD_RENAMES, snakeKeys } from '@pylon/kit';
import { updateOp, type FieldMap } from './declare.js';
import { recordAt, recordsAt, type GqlRecord } from './shape.js';
import type { RestOperation } from './types.js';

/** Account and organization records: snake_case, plus the reference's `timeZone`. */
const toRestAccount = (a: GqlRecord) => {
  const body = snakeKeys(a, RECORD_RENAMES) as Record<string, unknown>;
  return 'timezone' in body ? { ...body, timeZone: body.timezone } : body;
};

export const getAccount: RestOperation = {
  variables: () => ({}),
  respond: (data) => ({ body: toRestAccount(recordAt(data, 'account')) }),
  accepts: {},
};

/** REST body property -> UpdateAccountInput field. */
const ACCOUNT_FIELDS: FieldMap = {
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
  timeZone: 'timezone',
};

/** PUT answers 204, as the reference does. */
export const updateAccount = updateOp({ root: 'updateAccount', record: 'account', param: false, body: { fields: ACCOUNT_FIELDS }, status: 204, toRest: toRestAccount });

export const listOrganizations: RestOperation = {
  variables: () => ({}),
  respond: (data) => ({ body: recordsAt(data, 'organizations').map(toRestAccount) }),
  accepts: {},
};
