/** GET /users and GET /users/{id} onto Query.user (reference User shape: user_name, role as a list). */
import { getOp, listOp } from './declare.js';
import type { GetUserQuery } from '@pylon/kit/generated/rest-operations.generated';
import type { RestSchema } from './types.js';

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

export const listUsers = listOp('listUsers', { root: 'user', count: 'total', params: { id: { to: 'id', one: true } }, toRest: toRestUser });

export const getUser = getOp('getUser', { root: 'user', what: 'user', toRest: toRestUser });
