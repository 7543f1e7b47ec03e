import { JsonScalar, type InternalTokens } from '@pylon/kit';
import { createRuntimeSubgraph, type RuntimeSubgraph } from '@pylon/kit/serving';
import { groupResolvers } from './features/groups/resolvers.js';
import { mediaResolvers } from './features/media/resolvers.js';
import { playlistResolvers } from './features/playlists/resolvers.js';
import { templateResolvers } from './features/templates/resolvers.js';
import { createContentRuntime, type ContentRuntime, type ContentRuntimeDeps } from './runtime.js';

export type ContentDeps = ContentRuntimeDeps & { tokens: InternalTokens };

export type ContentSubgraph = RuntimeSubgraph<ContentRuntime>;

/** The content subgraph (media, playlists, templates); main.ts serves it over HTTP, the all-in-one gateway calls it in-process. Uploads and files share its runtime (features/media/http/media-http.ts). */
export function createContentSubgraph(deps: ContentDeps): ContentSubgraph {
  return createRuntimeSubgraph('content', deps.tokens, createContentRuntime(deps), [
    mediaResolvers,
    playlistResolvers,
    templateResolvers,
    groupResolvers,
    () => ({ JSON: JsonScalar }),
  ]);
}
