import { mergeResolvers } from '@pylon/kit';
import type { ContentRepository } from '../content.repository.js';
import { mediaResolvers } from './media.resolvers.js';
import { playlistResolvers } from './playlist.resolvers.js';
import type { Resolvers } from './resolvers.generated.js';
import { templateResolvers } from './template.resolvers.js';

/** Media, playlists and templates: each type's resolvers (and __resolveReference) live in its own module. */
export function contentResolvers(repo: ContentRepository): Resolvers {
  return mergeResolvers(mediaResolvers(repo), playlistResolvers(repo), templateResolvers(repo));
}
