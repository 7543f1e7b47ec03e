/** GET /templates, GET/DELETE /templates/{id} and /templates/groups onto the content subgraph. */
import { deleteOp } from './declare.js';
import { whereReads } from './content-reads.js';
import { toRestTemplate } from './content-shape.js';
import { groupOps } from './groups.js';
import { md, noContent, params, route } from './route.js';

export const { list: listTemplates, get: getTemplate } = whereReads({ noun: 'template', tag: 'Templates', toRest: toRestTemplate });

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
