import type { FieldMap } from '@pylon/kit';
import { areaReads, GROUPED_FIELDS } from '../../shared/list-items.js';

/** How PlaylistFilterInput / PlaylistSortInput map onto stored playlist documents. */
export const PLAYLIST_FIELDS: FieldMap = {
  id: { path: 'id', kind: 'string' },
  name: { path: 'name', kind: 'string' },
  // PlaylistType values are stored as the enum's names, so eq/in compare them directly.
  type: { path: 'type', kind: 'string' },
  duration: { path: 'duration', kind: 'number' },
  ...GROUPED_FIELDS,
};

/** The caller's playlists: `where`, sorted, offset, limited; and how many `where` keeps (no limit, no offset). */
export const { list: listPlaylists, count: countPlaylists } = areaReads((repo) => repo.playlists, PLAYLIST_FIELDS);
