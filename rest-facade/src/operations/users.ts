/** GET /users and GET /users/{id} onto Query.user (reference User shape: user_name, role as a list). */
import { getOp, listOp } from './declare.js';
import type { GetUserQuery } from '@pylon/kit/generated/rest-operations.generated';
import type { RestSchema } from './types.js';
import { errors, json, params, ref, route } from './route.js';
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
    responses: {
      '200': {
        description: 'One page of users (possibly empty).',
        content: json({ type: 'array', items: ref('User') }),
      },
      ...errors(400, 401, 403, 429, 500, 503),
    },
  },
  listOp('listUsers', {
    document: gql`
      # GET /users: one page of the account's users.
      query listUsers($id: [String!], $limit: Int, $offset: Int) {
        user(id: $id, limit: $limit, offset: $offset) {
          id
          firstName
          lastName
          email
          username
          roles
          orgId
          lastActivity
          createdOn
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
    parameters: params('IdPath'),
    responses: {
      '200': { description: 'The user.', content: json(ref('User')) },
      ...errors(401, 403, 404, 429, 500, 503),
    },
  },
  getOp('getUser', {
    document: gql`
      # GET /users/{id}: one user of the account.
      query getUser($id: String!) {
        user(id: [$id], limit: 1) {
          id
          firstName
          lastName
          email
          username
          roles
          orgId
          lastActivity
          createdOn
        }
      }
    `,
    root: 'user',
    what: 'user',
    toRest: toRestUser,
  }),
);
