/** GET/PUT /account onto Query.account / Mutation.updateAccount, GET /account/organizations onto Query.organizations. */
import { RECORD_RENAMES, snakeKeys } from '@pylon/kit';
import type { GetAccountQuery, ListOrganizationsQuery } from '@pylon/kit/generated/rest-operations.generated';
import { restOp, updateOp, type FieldMap } from './declare.js';
import { fieldOf, listOf } from './shape.js';
import type { RestSchema } from './types.js';
import { toRestUser } from './users.js';
import { answers, arrayOf, jsonBody, md, noContent, ref, route } from './route.js';
import { gql } from './gql.js';

type AccountData = NonNullable<GetAccountQuery['account']>;
type OrganizationData = NonNullable<ListOrganizationsQuery['organizations']>[number];

/** Account and organization records: snake_case (kit snakeKeys, address1 -> address_1), plus the reference's `timeZone`. */
function toRestAccount(a: AccountData): RestSchema<'Account'>;
function toRestAccount(a: OrganizationData): RestSchema<'Organization'>;
function toRestAccount(a: AccountData | OrganizationData): RestSchema<'Account'> | RestSchema<'Organization'> {
  const body = snakeKeys(a, RECORD_RENAMES) as RestSchema<'Account'> | RestSchema<'Organization'>;
  return 'timezone' in body ? ({ ...body, timeZone: body.timezone } as typeof body) : body;
}

/** The reference's account `tags` and `logo_url`: Pylon accounts have neither (null). */
export const getAccount = route(
  'GET /account',
  {
    tags: ['Account'],
    summary: "The caller's account.",
    description: 'The account the credentials belong to (the same record legacy GET /account returns).',
    responses: answers('The account.', ref('Account'), 400, 401, 403, 500, 503),
  },
  restOp('getAccount', {
    document: gql`
      # GET /account: the caller's account record.
      query getAccount {
        account {
          id
          name
          businessName
          address1
          address2
          city
          state
          postalCode
          country
          phone
          fax
          primaryContactId
          secondaryContactId
          createdOn
          timezone
        }
      }
    `,
    variables: () => ({}),
    respond: (data) => ({ body: { ...toRestAccount(fieldOf(data, 'account')), tags: null, logo_url: null } }),
    accepts: {},
  }),
);

/** Null from a reference client ("no value") leaves a required field as it is. */
const keepOnNull = <T extends string>(to: T) => ({ to, map: (v: unknown) => v ?? undefined });

/** REST body property -> UpdateAccountInput field. */
const ACCOUNT_FIELDS = {
  name: keepOnNull('name'),
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
  timezone: keepOnNull('timezone'),
  timeZone: keepOnNull('timezone'),
  // The reference's read-only members, sent back by clients that PUT the Account they read: ignored.
  id: false,
  created_on: false,
  tags: false,
  logo_url: false,
} as const satisfies FieldMap;

/** PUT answers 204, as the reference does. */
export const updateAccount = route(
  'PUT /account',
  {
    tags: ['Account'],
    summary: "Change the caller's account.",
    description: md(
      'Changes the fields given (snake_case, as in the legacy account record); fields not given stay',
      'as they are and null clears an optional one (null for `name` or `timezone`, which an account',
      'always has, leaves them as they are). `timezone` must be an IANA time zone name;',
      '`primary_contact_id` and `secondary_contact_id` must be users of the account. The',
      "reference's read-only `id`, `created_on`, `tags` and `logo_url` (sent back by clients that",
      'PUT the account they read) are accepted and ignored; other unknown properties are refused',
      "with 400. The reference's `timeZone` is accepted for `timezone`. Account owners and",
      'administrators only (403 otherwise). Answers 204, as the reference does.',
    ),
    requestBody: jsonBody('AccountUpdate'),
    responses: noContent('Updated; GET /account reads it.', 400, 401, 403, 429, 500, 503),
  },
  updateOp('updateAccount', {
    root: 'updateAccount',
    record: 'account',
    param: false,
    body: { fields: ACCOUNT_FIELDS },
    status: 204,
    toRest: toRestAccount,
  }),
);

/**
 * Organizations with the reference's `users`: the account's users whose org_id is the
 * organization's, in the reference User shape; null for every organization when the caller may
 * not list users (Account_ManageUsers_View), since `user` is an optional root here.
 */
export const listOrganizations = route(
  'GET /account/organizations',
  {
    tags: ['Account'],
    summary: "Organizations of the caller's account.",
    description: 'Every organization of the account, by name. Any authenticated caller.',
    responses: answers('The organizations (possibly none).', arrayOf('Organization'), 401, 429, 500, 503),
  },
  restOp('listOrganizations', {
    document: gql`
      # GET /account/organizations: the caller's account's organizations, and the account's users to
      # answer each organization's 'users' (null when the caller may not list users: 'user' is optional).
      query listOrganizations {
        organizations(limit: 1000) {
          id
          name
          address1
          address2
          city
          state
          postalCode
          country
          phone
          fax
          timezone
          languageCode
          createdOn
        }
        user(limit: 1000) {
          ...RestUser
        }
      }
    `,
    variables: () => ({}),
    respond(data) {
      const users = Array.isArray(data.user) ? listOf(data, 'user') : null;
      return {
        body: listOf(data, 'organizations').map((o) => ({ ...toRestAccount(o), users: users ? users.filter((u) => u.orgId === o.id).map(toRestUser) : null })),
      };
    },
    accepts: {},
    optionalRoots: ['user'],
  }),
);
