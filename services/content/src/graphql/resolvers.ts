import type { SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import type { ContentRepository } from '../content.repository.js';
import { mediaResolvers } from './media.resolvers.js';
import { playlistResolvers } from './playlist.resolvers.js';
import { templateResolvers } from './template.resolvers.js';

/** Media, playlists and templates: each type's resolvers (and __resolveReference) live in its own module. */
export function contentResolvers(repo: ContentRepository): GraphQLResolverMap<SubgraphContext> {
  const { Query: mediaQuery, ...media } = mediaResolvers(repo);
  const { Query: playlistQuery, ...playlists } = playlistResolvers(repo);
  const { Query: templateQuery, ...templates } = templateResolvers(repo);
  return {
    Query: { ...mediaQuery, ...playlistQuery, ...templateQuery },
    ...media,
    ...playlists,
    ...templates,
  };
}
