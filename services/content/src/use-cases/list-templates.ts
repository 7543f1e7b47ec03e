import type { FieldMap, Principal } from '@pylon/kit';
import type { ContentRepository, Template } from '../repositories/content.repository.js';
import { countItems, listItems, type ListQuery } from './list-items.js';

/** How TemplateFilterInput / TemplateSortInput map onto stored template documents. */
export const TEMPLATE_FIELDS: FieldMap = {
  id: { path: 'id', kind: 'string' },
  name: { path: 'name', kind: 'string' },
  width: { path: 'width', kind: 'number' },
  height: { path: 'height', kind: 'number' },
  orientation: { path: 'orientation', kind: 'number' },
  tags: { path: 'tags', kind: 'stringList' },
  groupId: { path: 'groupId', kind: 'string' },
  groupName: { path: 'groupName', kind: 'string' },
  createdOn: { path: 'createdAt', kind: 'date' },
  updatedOn: { path: 'updatedAt', kind: 'date' },
};

export function listTemplates(repo: ContentRepository, principal: Principal, q: ListQuery): Promise<Template[]> {
  return listItems(repo.templates, TEMPLATE_FIELDS, principal, q);
}

/** How many templates listTemplates would return with the same `where` (no limit, no offset). */
export function countTemplates(repo: ContentRepository, principal: Principal, q: ListQuery): Promise<number> {
  return countItems(repo.templates, TEMPLATE_FIELDS, principal, q);
}
