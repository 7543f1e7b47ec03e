export { createContentSubgraph, type ContentDeps, type ContentSubgraph } from './app.js';
export { createMediaHttp, type MediaHttpOptions } from './features/media/http/media-http.js';
export type { ContentRuntime, ContentSettings } from './runtime.js';
export { ContentRepository, GroupedItems, PlaylistItems, TemplateItems } from './shared/content.repository.js';
export type { MediaRecord } from './domain/media.js';
export type { PlaylistRecord, PlaylistSourceRecord, PlaylistType, SourceType } from './domain/playlist.js';
export type { TemplateRecord, TemplateModuleRecord } from './domain/template.js';
export type { ContentGroupRecord } from './domain/group.js';
// Use cases other packages call in-process (the launcher's demo seeding).
export { addMedia } from './features/media/add-media.js';
export { createPlaylist } from './features/playlists/manage-playlists.js';
export { createTemplate } from './features/templates/manage-templates.js';
export { addPlaylistSource } from './features/playlists/playlist-sources.js';
export { startExpirySweep, sweepDue } from './features/expiry/expiry-due.js';
export {
  playerContent,
  playerMedia,
  type PlayerContent,
  type PlayerMedia,
  type PlayerPlaylist,
  type PlayerSource,
  type PlayerTemplate,
} from './features/player-content/player-content.js';
