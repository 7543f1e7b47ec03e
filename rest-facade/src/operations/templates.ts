/** GET /templates, GET/DELETE /templates/{id} and /templates/groups onto the content subgraph. */
import type { RestTemplateFragment } from '@pylon/kit/generated/rest-operations.generated';
import { deleteOp, getOp, listOp } from './declare.js';
import { toRestTemplate } from './content-shape.js';
import { groupOps } from './groups.js';
import { answers, arrayOf, byId, md, noContent, params, route } from './route.js';
import { gql } from './gql.js';

const toRest = (t: RestTemplateFragment) => toRestTemplate(t);

export const listTemplates = route(
  'GET /templates',
  {
    tags: ['Templates'],
    summary: "Templates of the caller's account.",
    description: md('Every filter given must match (group_id and group_name match any of their values), by name.', 'Policy: Templates_View.'),
    parameters: params('IdQuery', 'Take', 'Page', 'GroupId', 'GroupName'),
    responses: answers('One page of templates (possibly empty).', arrayOf('Template'), 400, 401, 403, 500, 503),
  },
  listOp('listTemplates', {
    document: gql`
      # GET /templates. Absent variables leave their where clauses empty, so every filter is optional.
      query listTemplates($id: [String], $groupId: [String], $groupName: [String], $limit: Int, $offset: Int) {
        template(
          where: { id: { in: $id }, groupId: { in: $groupId }, groupName: { in: $groupName } }
          order: [{ name: ASC }, { id: ASC }]
          limit: $limit
          offset: $offset
        ) {
          ...RestTemplate
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, counted by the store.
        total: templateCount(where: { id: { in: $id }, groupId: { in: $groupId }, groupName: { in: $groupName } })
      }
    `,
    root: 'template',
    count: 'total',
    params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName' },
    toRest,
  }),
);

export const getTemplate = route(
  'GET /templates/{id}',
  {
    tags: ['Templates'],
    summary: 'One template.',
    description: md("404 when no template of the caller's account has this id. Policy: Templates_View."),
    ...byId('The template.', 'Template', 400, 401, 403, 404, 500, 503),
  },
  getOp('getTemplate', {
    document: gql`
      # GET /templates/{id}. An empty list means the id is unknown in the caller's account: the facade answers 404.
      query getTemplate($id: String!) {
        template(where: { id: { eq: $id } }, limit: 1) {
          ...RestTemplate
        }
      }
    `,
    root: 'template',
    what: 'template',
    toRest,
  }),
);

export const deleteTemplate = route(
  'DELETE /templates/{id}',
  {
    tags: ['Templates'],
    summary: 'Delete a template.',
    description: md('Policy: Templates_Delete.'),
    parameters: params('IdPath'),
    responses: noContent('Deleted.', 401, 403, 404, 500),
  },
  deleteOp('deleteTemplate', { root: 'deleteTemplate' }),
);

export const {
  list: listTemplateGroups,
  create: createTemplateGroup,
  update: updateTemplateGroup,
  remove: deleteTemplateGroup,
} = groupOps({
  path: '/templates/groups',
  tag: 'Templates',
  noun: 'template',
  plural: 'templates',
  policy: 'Templates',
  schema: 'ContentGroup',
  request: 'ContentGroupRequest',
});
