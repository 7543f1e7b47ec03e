/** GET /users and GET /users/{id} onto Query.user (reference User shape: user_name, role as a list). */
import { badInput, notFound } from '@pylon/kit';
import { GRAPHQL_INT_MAX, one, recordsAt, type GqlRecord } from './shape.js';
import type { RestOperation } from './types.js';

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
  };
}

const userFieldNames = { limit: 'take', offset: 'page', id: 'id' } as const;

export const listUsers: RestOperation = {
  variables({ query: q }) {
    const take = q.take as number | undefined;
    const page = q.page as number | undefined;
    const offset = take !== undefined && page !== undefined ? take * page : undefined;
    if (offset !== undefined && offset > GRAPHQL_INT_MAX) throw badInput('page', `page * take must be at most ${GRAPHQL_INT_MAX}`);
    return { id: one(q.id as string | undefined), limit: take, offset };
  },
  respond: (data) => ({ body: recordsAt(data, 'user').map(toRestUser) }),
  fieldNames: userFieldNames,
};

export const getUser: RestOperation = {
  variables: ({ params }) => ({ id: params.id }),
  respond(data, { params }) {
    const [user] = recordsAt(data, 'user');
    // Unknown and foreign ids look the same: the user query only sees the caller's account.
    if (!user) throw notFound('user', String(params.id));
    return { body: toRestUser(user) };
  },
  fieldNames: userFieldNames,
};
