import type { CollectionSpec } from '@pylon/kit';

export const MEDIA: CollectionSpec = { name: 'media' };
export const MEDIA_GROUPS: CollectionSpec = { name: 'mediaGroups' };
export const PLAYLISTS: CollectionSpec = { name: 'playlists' };
export const PLAYLIST_GROUPS: CollectionSpec = { name: 'playlistGroups' };
export const TEMPLATES: CollectionSpec = { name: 'templates' };
export const TEMPLATE_GROUPS: CollectionSpec = { name: 'templateGroups' };
/** Documents of no single account (the due-time set below) live under this tenant. */
export const SYSTEM_TENANT = 'pylon-system';
/**
 * The due-time set of content expiry (features/expiry): one document per source or file whose
 * validUntil is ahead (content.expired) and per playlist or file that runs empty because of expiry
 * (content.running_empty), under the SYSTEM_TENANT, with the instant (epoch ms) the sweep acts.
 * The index on `dueAt` lets the sweep read only the due ones.
 */
export const CONTENT_DUE: CollectionSpec = { name: 'contentDue', indexes: [{ name: 'dueAt', fields: ['dueAt'] }] };
