import { JsonScalar, mergeResolvers, type InternalTokens, type Subgraph } from '@pylon/kit';
import { createSubgraph } from '@pylon/kit/serving';
import type { ContentRepository } from './shared/content.repository.js';
import { groupResolvers } from './features/groups/resolvers.js';
import { mediaResolvers } from './features/media/resolvers.js';
import { playlistResolvers } from './features/playlists/resolvers.js';
import { templateResolvers } from './features/templates/resolvers.js';
import { createContentRuntime, type ContentRuntime, type ContentRuntimeDeps } from './runtime.js';

export interface ContentDeps extends ContentRuntimeDeps {
  tokens: InternalTokens;
}

export type ContentSubgraph = Subgraph & { repo: ContentRepository; runtime: ContentRuntime };

/** The content subgraph (media, playlists, templates); main.ts serves it over HTTP, the all-in-one gateway calls it in-process. Uploads and files share its runtime (features/media/http/media-http.ts). */
export function createContentSubgraph(deps: ContentDeps): ContentSubgraph {
  const runtime = createContentRuntime(deps);
  const subgraph = createSubgraph({ name: 'content', tokens: deps.tokens, resolvers: contentResolvers(runtime) });
  return Object.assign(subgraph, { repo: runtime.repo, runtime });
}

function contentResolvers(rt: ContentRuntime) {
  return mergeResolvers(mediaResolvers(rt), playlistResolvers(rt), templateResolvers(rt), groupResolvers(rt), { JSON: JsonScalar });
}
