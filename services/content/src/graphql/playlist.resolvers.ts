import { isoSeconds, requirePolicy, type SubgraphContext } from '@pylon/kit';
import type { ContentRepository, Playlist } from '../content.repository.js';
import { calculatedDuration, playOrder, type PlaylistSourceRecord } from '../domain/playlist.js';
import { listGroups } from '../use-cases/list-groups.js';
import type { ListQuery } from '../use-cases/list-items.js';
import { listPlaylists } from '../use-cases/list-playlists.js';
import { mediaLoader, playlistLoader } from './loaders.js';

export function playlistResolvers(repo: ContentRepository) {
  return {
    Query: {
      playlist: (_: unknown, args: ListQuery, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Playlists_View');
        return listPlaylists(repo, ctx.principal, args);
      },
      playlistGroups: (_: unknown, args: { tree?: boolean | null }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Playlists_View');
        return listGroups(repo.playlists, ctx.principal, args.tree === true);
      },
    },
    Playlist: {
      __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Playlists_View');
        return playlistLoader(repo, ctx).load(ref.id);
      },
      sources: (p: Playlist) => playOrder(p.sources ?? []),
      calculatedDuration: (p: Playlist) => calculatedDuration(p.sources ?? []),
      tags: (p: Playlist) => p.tags ?? [],
      createdOn: (p: Playlist) => isoSeconds(p.createdAt),
      updatedOn: (p: Playlist) => isoSeconds(p.updatedAt),
    },
    PlaylistSource: {
      // The file's current name and address; reading them is part of reading the playlist (Playlists_View).
      media: async (s: PlaylistSourceRecord, _: unknown, ctx: SubgraphContext) => {
        if (!s.mediaId) return null;
        const m = await mediaLoader(repo, ctx).load(s.mediaId);
        return m ? { id: m.id, fileName: m.fileName, fileUrl: m.fileUrl } : null;
      },
    },
  };
}
