import type { FieldMap, Principal } from '@pylon/kit';
import type { ContentRepository, Playlist } from '../repositories/content.repository.js';
import { countItems, listItems, type ListQuery } from './list-items.js';

/** How PlaylistFilterInput / PlaylistSortInput map onto stored playlist documents. */
export const PLAYLIST_FIELDS: FieldMap = {
  id: { path: 'id', kind: 'string' },
  name: { path: 'name', kind: 'string' },
  // PlaylistType values are stored as the enum's names, so eq/in compare them directly.
  type: { path: 'type', kind: 'string' },
  duration: { path: 'duration', kind: 'number' },
  tags: { path: 'tags', kind: 'stringList' },
  groupId: { path: 'groupId', kind: 'string' },
  groupName: { path: 'groupName', kind: 'string' },
  createdOn: { path: 'createdAt', kind: 'date' },
  updatedOn: { path: 'updatedAt', kind: 'date' },
};

export function listPlaylists(repo: ContentRepository, principal: Principal, q: ListQuery): Promise<Playlist[]> {
  return listItems(repo.playlists, PLAYLIST_FIELDS, principal, q);
}

/** How many playlists listPlaylists would return with the same `where` (no limit, no offset). */
export function countPlaylists(repo: ContentRepository, principal: Principal, q: ListQuery): Promise<number> {
  return countItems(repo.playlists, PLAYLIST_FIELDS, principal, q);
}
