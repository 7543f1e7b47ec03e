import type { FieldMap } from '@pylon/kit';
import { areaReads } from '../../shared/list-items.js';

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

/** The caller's playlists: `where`, sorted, offset, limited; and how many `where` keeps (no limit, no offset). */
export const { list: listPlaylists, count: countPlaylists } = areaReads((repo) => repo.playlists, PLAYLIST_FIELDS);
