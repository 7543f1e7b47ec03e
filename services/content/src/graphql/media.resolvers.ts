import { isoSeconds, listGroupViews } from '@pylon/kit';
import type { Media } from '../repositories/content.repository.js';
import type { ContentRuntime } from '../runtime.js';
import { countMedia, listMedia } from '../use-cases/list-media.js';
import type { Resolvers } from './resolvers.generated.js';
import { mediaLoader } from './loaders.js';

/** Files we hold are served at signed, expiring addresses computed on every read; others keep their stored address. */
export const fileUrlOf = (rt: ContentRuntime, m: Pick<Media, 'accountId' | 'blobKey' | 'fileUrl'>): string | null =>
  m.blobKey ? rt.urls.urlFor(m.accountId, m.blobKey) : m.fileUrl;

export function mediaResolvers(rt: ContentRuntime): Resolvers {
  const repo = rt.repo;
  return {
    Query: {
      media: (_, args, ctx) => {
        return listMedia(repo, ctx.principal, args);
      },
      mediaCount: (_, args, ctx) => {
        return countMedia(repo, ctx.principal, args);
      },
      mediaGroups: (_, args, ctx) => {
        return listGroupViews(repo.media.groupTree, ctx.principal, args);
      },
    },
    Media: {
      __resolveReference: (ref, ctx) => {
        return mediaLoader(repo, ctx).load(ref.id);
      },
      fileUrl: (m) => fileUrlOf(rt, m),
      thumbnailUrl: (m) => (m.thumbKey ? rt.urls.urlFor(m.accountId, m.thumbKey) : m.thumbnailUrl),
      uploadedOn: (m) => isoSeconds(m.createdAt),
      duration: (m) => m.duration ?? null,
      sha512: (m) => m.sha512 ?? null,
      startDate: (m) => isoSeconds(m.startDate ?? null),
      endDate: (m) => isoSeconds(m.endDate ?? null),
      tags: (m) => m.tags ?? [],
    },
  };
}
