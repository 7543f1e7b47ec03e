export { createContentSubgraph, type ContentDeps } from './app.js';
export { ContentRepository, GroupedItems } from './content.repository.js';
export type { MediaRecord } from './domain/media.js';
export type { PlaylistRecord, PlaylistSourceRecord, PlaylistType, SourceType } from './domain/playlist.js';
export type { TemplateRecord, TemplateModuleRecord } from './domain/template.js';
export type { ContentGroupRecord } from './domain/group.js';
