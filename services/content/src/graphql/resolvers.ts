import { mergeResolvers, JsonScalar } from '@pylon/kit';
import type { ContentRuntime } from '../runtime.js';
import { mediaResolvers } from './media.resolvers.js';
import { mutationResolvers } from './mutation.resolvers.js';
import { playlistResolvers } from './playlist.resolvers.js';
import type { Resolvers } from './resolvers.generated.js';
import { templateResolvers } from './template.resolvers.js';

/** Media, playlists and templates: each type's resolvers (and __resolveReference) live in its own module. */
export function contentResolvers(rt: ContentRuntime): Resolvers {
  return mergeResolvers(mediaResolvers(rt), playlistResolvers(rt), templateResolvers(rt), { Mutation: mutationResolvers(rt) }, { JSON: JsonScalar });
}
