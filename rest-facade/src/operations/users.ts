/** GET /users and GET /users/{id} onto Query.user (reference User shape: user_name, role as a list). */
import { getOp, listOp } from './declare.js';
import type { GqlRecord } from './shape.js';

export function toRestUser(u: GqlRecord): Record<string, unknown> {
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

export const listUsers = listOp({ root: 'user', count: 'total', params: { id: { to: 'id', one: true } }, toRest: toRestUser });

export const getUser = getOp({ root: 'user', what: 'user', toRest: toRestUser });
