import type { CollectionSpec } from '@pylon/kit';

export const MEDIA: CollectionSpec = { name: 'media' };
export const MEDIA_GROUPS: CollectionSpec = { name: 'mediaGroups' };
export const PLAYLISTS: CollectionSpec = { name: 'playlists' };
export const PLAYLIST_GROUPS: CollectionSpec = { name: 'playlistGroups' };
export const TEMPLATES: CollectionSpec = { name: 'templates' };
export const TEMPLATE_GROUPS: CollectionSpec = { name: 'templateGroups' };
