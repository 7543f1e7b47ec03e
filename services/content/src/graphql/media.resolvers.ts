import { guardEntity, guardQuery, isoSeconds } from '@pylon/kit';
import type { ContentRepository } from '../content.repository.js';
import { listGroups } from '../use-cases/list-groups.js';
import { listMedia } from '../use-cases/list-media.js';
import type { Resolvers } from './resolvers.generated.js';
import { mediaLoader } from './loaders.js';

export function mediaResolvers(repo: ContentRepository): Resolvers {
  return {
    Query: {
      media: (_, args, ctx) => {
        guardQuery(ctx.principal, 'media');
        return listMedia(repo, ctx.principal, args);
      },
      mediaGroups: (_, args, ctx) => {
        guardQuery(ctx.principal, 'mediaGroups');
        return listGroups(repo.media, ctx.principal, args.tree === true);
      },
    },
    Media: {
      __resolveReference: (ref, ctx) => {
        guardEntity(ctx.principal, 'Media');
        return mediaLoader(repo, ctx).load(ref.id);
      },
      uploadedOn: (m) => isoSeconds(m.createdAt),
      tags: (m) => m.tags ?? [],
    },
  };
}
