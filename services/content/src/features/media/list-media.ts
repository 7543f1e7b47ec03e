import { storedFields, type FieldMap, type Principal } from '@pylon/kit';
import type { ContentRepository, Media } from '../../shared/content.repository.js';
import { countItems, listItems, type ItemFilters, type ListQuery } from '../../shared/list-items.js';

export interface MediaQuery extends ListQuery {
  id?: string[] | null;
  groupId?: string[] | null;
  groupName?: string[] | null;
  orgId?: string | null;
  tag?: string[] | null;
}

/** How MediaFilterInput / MediaSortInput map onto stored media documents. */
export const MEDIA_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name', 'fileName', 'mimeType', 'groupId', 'groupName', 'orgId']),
  ...storedFields('number', ['fileSize', 'width', 'height']),
  tags: { path: 'tags', kind: 'stringList' },
  uploadedOn: { path: 'createdAt', kind: 'date' },
};

/** Lists the caller's media; id, groupId, groupName and tag each match any listed value. */
export function listMedia(repo: ContentRepository, principal: Principal, q: MediaQuery): Promise<Media[]> {
  return listItems(repo.media, MEDIA_FIELDS, principal, q, mediaFilters(q));
}

/** How many media listMedia would return with the same filters (no limit, no offset). */
export function countMedia(repo: ContentRepository, principal: Principal, q: MediaQuery): Promise<number> {
  return countItems(repo.media, MEDIA_FIELDS, principal, q, mediaFilters(q));
}

function mediaFilters(q: MediaQuery): ItemFilters {
  return { anyOf: { id: q.id, groupId: q.groupId, groupName: q.groupName, tags: q.tag }, clauses: q.orgId ? [{ orgId: q.orgId }] : [] };
}
