/** GET /users and GET /users/{id} onto Query.user (reference User shape: user_name, role as a list); PATCH /users/{id} onto Mutation.patchUser. */
import { getOp, listOp, patchOp } from './declare.js';
import type { GetUserQuery } from '@pylon/kit/generated/rest-operations.generated';
import type { RestSchema } from './types.js';
import { answers, arrayOf, byId, JSON_PATCH_BODY, md, params, ref, route } from './route.js';
import { gql } from './gql.js';

/** A user as the persisted documents select it. */
export type UserData = NonNullable<GetUserQuery['user']>[number];

export function toRestUser(u: UserData): RestSchema<'User'> {
  return {
    id: u.id,
    first_name: u.firstName ?? null,
    last_name: u.lastName ?? null,
    email: u.email ?? null,
    user_name: u.username,
    role: u.roles ?? [],
    org_id: u.orgId ?? null,
    last_activity: u.lastActivity ?? null,
    created_on: u.createdOn ?? null,
    disabled: u.disabled ?? false,
    // Reference members Pylon does not store.
    city: null,
    state: null,
    postal_code: null,
    country: null,
    home_phone: null,
    work_phone: null,
    mobile_phone: null,
  };
}

export const listUsers = route(
  'GET /users',
  {
    tags: ['Users'],
    summary: "Users of the caller's account.",
    description: 'Users by username, one page (take, page 0-based). Policy Account_ManageUsers_View.',
    parameters: params('IdQuery', 'Take', 'Page'),
    responses: answers('One page of users (possibly empty).', arrayOf('User'), 400, 401, 403, 429, 500, 503),
  },
  listOp('listUsers', {
    document: gql`
      # GET /users: one page of the account's users.
      query listUsers($id: [String!], $limit: Int, $offset: Int) {
        user(id: $id, limit: $limit, offset: $offset) {
          ...RestUser
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, counted by the store.
        total: userCount(id: $id)
      }
    `,
    root: 'user',
    count: 'total',
    params: { id: { to: 'id', one: true } },
    toRest: toRestUser,
  }),
);

export const getUser = route(
  'GET /users/{id}',
  {
    tags: ['Users'],
    summary: 'One user.',
    description: '404 when the account has no user with this id (users of other accounts are not revealed). Policy Account_ManageUsers_View.',
    ...byId('The user.', 'User', 401, 403, 404, 429, 500, 503),
  },
  getOp('getUser', {
    document: gql`
      # GET /users/{id}: one user of the account.
      query getUser($id: String!) {
        user(id: [$id], limit: 1) {
          ...RestUser
        }
      }
    `,
    root: 'user',
    what: 'user',
    toRest: toRestUser,
  }),
);

export const patchUser = route(
  'PATCH /users/{id}',
  {
    tags: ['Users'],
    summary: 'JSON Patch a user: names, email, roles, organization, disabled.',
    description: md(
      'Operations on /first_name, /last_name, /email, /role (the list of roles), /org_id and /disabled',
      '(remove = null, which leaves role and disabled as they are); other paths are refused with 400',
      'naming them. Answers the user as GET /users/{id} does. Account owners and administrators only;',
      'only an owner may grant or remove the Owner role or change or disable an owner (403). The',
      "account's last enabled owner can be neither demoted nor disabled, and nobody disables",
      'themselves (422). Users of other accounts are 404. A disabled user cannot sign in or refresh a',
      'token, and their API keys answer 401 from the next request; an OAuth access token already',
      'issued stops within PRINCIPAL_CACHE_SECONDS (default 30 s), never later than its expiry.',
    ),
    parameters: params('IdPath'),
    requestBody: JSON_PATCH_BODY,
    responses: answers('The user.', ref('User'), 400, 401, 403, 404, 422, 429, 500, 503),
  },
  patchOp('patchUser', { root: 'patchUser', record: 'user', renames: { role: 'roles' }, toRest: toRestUser }),
);
