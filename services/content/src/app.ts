import { createSubgraph, type DocumentStore, type InternalTokens, type Subgraph } from '@pylon/kit';
import { ContentRepository } from './content.repository.js';
import { contentResolvers } from './graphql/resolvers.js';

export interface ContentDeps {
  documents: DocumentStore;
  tokens: InternalTokens;
}

/** The content subgraph (media, playlists, templates); main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createContentSubgraph(deps: ContentDeps): Subgraph & { repo: ContentRepository } {
  const repo = new ContentRepository(deps.documents);
  const subgraph = createSubgraph({ name: 'content', tokens: deps.tokens, resolvers: contentResolvers(repo) });
  return Object.assign(subgraph, { repo });
}
