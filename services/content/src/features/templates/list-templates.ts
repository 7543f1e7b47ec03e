import { storedFields, type FieldMap } from '@pylon/kit';
import { areaReads, GROUPED_FIELDS } from '../../shared/list-items.js';

/** How TemplateFilterInput / TemplateSortInput map onto stored template documents. */
export const TEMPLATE_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name']),
  ...storedFields('number', ['width', 'height', 'orientation']),
  ...GROUPED_FIELDS,
};

/** The caller's templates: `where`, sorted, offset, limited; and how many `where` keeps (no limit, no offset). */
export const { list: listTemplates, count: countTemplates } = areaReads((repo) => repo.templates, TEMPLATE_FIELDS);
