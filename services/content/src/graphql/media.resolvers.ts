import { isoSeconds, requirePolicy, type SubgraphContext } from '@pylon/kit';
import type { ContentRepository, Media } from '../content.repository.js';
import { listGroups } from '../use-cases/list-groups.js';
import { listMedia, type MediaQuery } from '../use-cases/list-media.js';
import { mediaLoader } from './loaders.js';

export function mediaResolvers(repo: ContentRepository) {
  return {
    Query: {
      media: (_: unknown, args: MediaQuery, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Files_View');
        return listMedia(repo, ctx.principal, args);
      },
      mediaGroups: (_: unknown, args: { tree?: boolean | null }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Files_View');
        return listGroups(repo.media, ctx.principal, args.tree === true);
      },
    },
    Media: {
      __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Files_View');
        return mediaLoader(repo, ctx).load(ref.id);
      },
      uploadedOn: (m: Media) => isoSeconds(m.createdAt),
      tags: (m: Media) => m.tags ?? [],
    },
  };
}
