/** GraphQL of media: the list and its count, the writes (uploads are HTTP: http/), and the Media type. */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import type { Media } from '../../shared/content.repository.js';
import type { ContentRuntime } from '../../runtime.js';
import { importMedia } from './add-media.js';
import { countMedia, listMedia } from './list-media.js';
import { deleteMedia, patchMedia, updateMedia } from './manage-media.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { mediaLoader } from '../../shared/loaders.js';

/** Files we hold are served at signed, expiring addresses computed on every read; others keep their stored address. */
export const fileUrlOf = (rt: ContentRuntime, m: Pick<Media, 'accountId' | 'blobKey' | 'fileUrl'>): string | null =>
  m.blobKey ? rt.urls.urlFor(m.accountId, m.blobKey) : m.fileUrl;

export function mediaResolvers(rt: ContentRuntime): Resolvers {
  const repo = rt.repo;
  return {
    Query: {
      media: (_, args, ctx) => listMedia(repo, ctx.principal, args),
      mediaCount: (_, args, ctx) => countMedia(repo, ctx.principal, args),
    },
    Mutation: {
      createMediaFromUrl: (_, a, ctx) => mutationPayload(async () => ({ media: await importMedia(rt, ctx.principal, a.input) })),
      updateMedia: (_, a, ctx) => mutationPayload(async () => ({ media: await updateMedia(rt, ctx.principal, a.id, a.input) })),
      patchMedia: (_, a, ctx) => mutationPayload(async () => ({ media: await patchMedia(rt, ctx.principal, a.id, a.operations) })),
      deleteMedia: (_, a, ctx) => mutationPayload(() => deleteMedia(rt, ctx.principal, a.id)),
    },
    Media: {
      __resolveReference: (ref, ctx) => mediaLoader(repo, ctx).load(ref.id),
      fileUrl: (m) => fileUrlOf(rt, m),
      thumbnailUrl: (m) => (m.thumbKey ? rt.urls.urlFor(m.accountId, m.thumbKey) : m.thumbnailUrl),
      uploadedOn: (m) => isoSeconds(m.createdAt),
      duration: (m) => m.duration ?? null,
      sha512: (m) => m.sha512 ?? null,
      startDate: (m) => isoSeconds(m.startDate ?? null),
      endDate: (m) => isoSeconds(m.endDate ?? null),
      validFrom: (m) => isoSeconds(m.startDate ?? null),
      validUntil: (m) => isoSeconds(m.endDate ?? null),
      tags: (m) => m.tags ?? [],
    },
  };
}
