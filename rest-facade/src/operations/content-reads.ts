/**
 * The two reads of a content type whose query filters in its `where` (playlists, templates: the
 * query has no id/group arguments): GET /<plural> (id, group_id, group_name; take/page; by name, the
 * store's count as the total) and GET /<plural>/{id}, each with its route and its document.
 */
import { getOp, listOp, type ToRest } from './declare.js';
import { answers, arrayOf, byId, md, params, route } from './route.js';
import { dedent } from './gql.js';
import type { RestOperation, RestRoute } from './types.js';

export interface WhereReads<F> {
  /** The GraphQL root (and what the 404 names): `playlist`; the REST path is its plural, `/playlists`. */
  noun: 'playlist' | 'template';
  /** The OpenAPI tag, which is also the policy prefix (Playlists_View). */
  tag: 'Playlists' | 'Templates';
  /** What the list's description says before its policy, beyond the filters. */
  notes?: string;
  /** The record's REST form; both documents select the type's `Rest<Type>` fragment (fragments.ts), whose generated type is F. */
  toRest: (record: F) => unknown;
}

type Routed = RestOperation & { route: RestRoute };

export function whereReads<F>(spec: WhereReads<F>): { list: Routed; get: Routed } {
  const { noun, tag } = spec;
  const Noun = `${noun.charAt(0).toUpperCase()}${noun.slice(1)}`;
  const plural = `${noun}s`;
  // Both documents select `...Rest<Type>`: each record is that fragment's generated type, F.
  const toRest: ToRest = (record) => spec.toRest(record as F);
  const where = 'where: { id: { in: $id }, groupId: { in: $groupId }, groupName: { in: $groupName } }';
  const list = route(
    `GET /${plural}`,
    {
      tags: [tag],
      summary: `${Noun}s of the caller's account.`,
      description: md(
        'Every filter given must match (group_id and group_name match any of their values), by name.',
        `${spec.notes ? `${spec.notes} ` : ''}Policy: ${tag}_View.`,
      ),
      parameters: params('IdQuery', 'Take', 'Page', 'GroupId', 'GroupName'),
      responses: answers(`One page of ${plural} (possibly empty).`, arrayOf(Noun), 400, 401, 403, 500, 503),
    },
    {
      operationId: `list${Noun}s`,
      ...listOp({
        document: dedent(`
        # GET /${plural}. Absent variables leave their where clauses empty, so every filter is optional.
        query list${Noun}s($id: [String], $groupId: [String], $groupName: [String], $limit: Int, $offset: Int) {
          ${noun}(
            ${where}
            order: [{ name: ASC }, { id: ASC }]
            limit: $limit
            offset: $offset
          ) {
            ...Rest${Noun}
          }
          # The list's total (rest-facade declare.ts 'count'): same filters, counted by the store.
          total: ${noun}Count(${where})
        }
      `),
        root: noun,
        count: 'total',
        params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName' },
        toRest,
      }),
    },
  );
  const get = route(
    `GET /${plural}/{id}`,
    {
      tags: [tag],
      summary: `One ${noun}.`,
      description: md(`404 when no ${noun} of the caller's account has this id. Policy: ${tag}_View.`),
      ...byId(`The ${noun}.`, Noun, 400, 401, 403, 404, 500, 503),
    },
    {
      operationId: `get${Noun}`,
      ...getOp({
        document: dedent(`
        # GET /${plural}/{id}. An empty list means the id is unknown in the caller's account: the facade answers 404.
        query get${Noun}($id: String!) {
          ${noun}(where: { id: { eq: $id } }, limit: 1) {
            ...Rest${Noun}
          }
        }
      `),
        root: noun,
        what: noun,
        toRest,
      }),
    },
  );
  return { list, get };
}
