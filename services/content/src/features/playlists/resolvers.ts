/** GraphQL of playlists: the list and its count, the writes and source edits, the Playlist and PlaylistSource types. */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import { calculatedDuration, playOrder } from '../../domain/playlist.js';
import type { ContentRuntime } from '../../runtime.js';
import { countPlaylists, listPlaylists } from './list-playlists.js';
import { createPlaylist, deletePlaylist, patchPlaylist, updatePlaylist } from './manage-playlists.js';
import { addPlaylistSource, addPlaylistWebPage, removePlaylistSource, reorderPlaylistSources, updatePlaylistSource } from './playlist-sources.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { mediaLoader, playlistLoader } from '../../shared/loaders.js';
import { fileUrlOf } from '../media/resolvers.js';

export function playlistResolvers(rt: ContentRuntime): Resolvers {
  const repo = rt.repo;
  return {
    Query: {
      playlist: (_, args, ctx) => listPlaylists(repo, ctx.principal, args),
      playlistCount: (_, args, ctx) => countPlaylists(repo, ctx.principal, args),
    },
    Mutation: {
      createPlaylist: (_, a, ctx) => mutationPayload(async () => ({ playlist: await createPlaylist(rt, ctx.principal, a.input) })),
      updatePlaylist: (_, a, ctx) => mutationPayload(async () => ({ playlist: await updatePlaylist(rt, ctx.principal, a.id, a.input) })),
      patchPlaylist: (_, a, ctx) => mutationPayload(async () => ({ playlist: await patchPlaylist(rt, ctx.principal, a.id, a.operations) })),
      deletePlaylist: (_, a, ctx) => mutationPayload(() => deletePlaylist(rt, ctx.principal, a.id)),
      addPlaylistSource: (_, a, ctx) => mutationPayload(async () => ({ playlist: await addPlaylistSource(rt, ctx.principal, a.input) })),
      addPlaylistWebPage: (_, a, ctx) => mutationPayload(async () => ({ playlist: await addPlaylistWebPage(rt, ctx.principal, a.input) })),
      updatePlaylistSource: (_, a, ctx) => mutationPayload(async () => ({ playlist: await updatePlaylistSource(rt, ctx.principal, a.input) })),
      removePlaylistSource: (_, a, ctx) => mutationPayload(async () => ({ playlist: await removePlaylistSource(rt, ctx.principal, a) })),
      reorderPlaylistSources: (_, a, ctx) => mutationPayload(async () => ({ playlist: await reorderPlaylistSources(rt, ctx.principal, a.input) })),
    },
    Playlist: {
      __resolveReference: (ref, ctx) => playlistLoader(repo, ctx).load(ref.id),
      sources: (p) => playOrder(p.sources ?? []),
      // Sources without an interval play their media's own duration: load those files (batched).
      calculatedDuration: async (p, _, ctx) => {
        const sources = p.sources ?? [];
        const open = [...new Set(sources.flatMap((s) => (s.interval == null && s.mediaId ? [s.mediaId] : [])))];
        const files = await mediaLoader(repo, ctx).loadMany(open);
        const durations = new Map(
          open.map((id, i) => {
            const m = files[i];
            return [id, m && !(m instanceof Error) ? (m.duration ?? null) : null] as const;
          }),
        );
        return calculatedDuration(sources, (id) => durations.get(id));
      },
      tags: (p) => p.tags ?? [],
      createdOn: (p) => isoSeconds(p.createdAt),
      updatedOn: (p) => isoSeconds(p.updatedAt),
    },
    PlaylistSource: {
      validFrom: (s) => isoSeconds(s.validFrom ?? null),
      validUntil: (s) => isoSeconds(s.validUntil ?? null),
      // The file's current name and address; reading them is part of reading the playlist (Playlists_View).
      media: async (s, _, ctx) => {
        if (!s.mediaId) return null;
        const m = await mediaLoader(repo, ctx).load(s.mediaId);
        if (!m) return null;
        return {
          id: m.id,
          fileName: m.fileName,
          fileUrl: fileUrlOf(rt, m),
          name: m.name,
          mimeType: m.mimeType,
          fileSize: m.fileSize,
          thumbnailUrl: m.thumbKey ? rt.urls.urlFor(m.accountId, m.thumbKey) : m.thumbnailUrl,
          uploadedOn: isoSeconds(m.createdAt),
          width: m.width,
          height: m.height,
          sha512: m.sha512 ?? null,
          startDate: isoSeconds(m.startDate ?? null),
          endDate: isoSeconds(m.endDate ?? null),
          validFrom: isoSeconds(m.startDate ?? null),
          validUntil: isoSeconds(m.endDate ?? null),
          tags: m.tags ?? [],
          groupId: m.groupId,
          groupName: m.groupName,
        };
      },
    },
  };
}
