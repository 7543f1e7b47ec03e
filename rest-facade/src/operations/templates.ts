/** GET /templates, GET/DELETE /templates/{id} and /templates/groups onto the content subgraph. */
import type { RestTemplateFragment } from '@pylon/kit/generated/rest-operations.generated';
import { deleteOp, getOp, listOp } from './declare.js';
import { toRestTemplate } from './content-shape.js';
import { CONTENT_GROUP_EXTRA, groupOps } from './groups.js';

const toRest = (t: RestTemplateFragment) => toRestTemplate(t);

export const listTemplates = listOp('listTemplates', {
  root: 'template',
  count: 'total',
  params: { id: { to: 'id', one: true }, group_id: 'groupId', group_name: 'groupName' },
  toRest,
});

export const getTemplate = getOp('getTemplate', { root: 'template', what: 'template', toRest });

export const deleteTemplate = deleteOp('deleteTemplate', { root: 'deleteTemplate' });

export const {
  list: listTemplateGroups,
  create: createTemplateGroup,
  update: updateTemplateGroup,
  remove: deleteTemplateGroup,
} = groupOps(
  {
    list: 'templateGroups',
    create: 'createTemplateGroup',
    update: 'updateTemplateGroup',
    remove: 'deleteTemplateGroup',
  },
  CONTENT_GROUP_EXTRA,
);
