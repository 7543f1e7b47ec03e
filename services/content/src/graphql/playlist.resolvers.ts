import { guardEntity, guardQuery, isoSeconds } from '@pylon/kit';
import type { ContentRepository } from '../content.repository.js';
import { calculatedDuration, playOrder } from '../domain/playlist.js';
import { listGroups } from '../use-cases/list-groups.js';
import { listPlaylists } from '../use-cases/list-playlists.js';
import type { Resolvers } from './resolvers.generated.js';
import { mediaLoader, playlistLoader } from './loaders.js';

export function playlistResolvers(repo: ContentRepository): Resolvers {
  return {
    Query: {
      playlist: (_, args, ctx) => {
        guardQuery(ctx.principal, 'playlist');
        return listPlaylists(repo, ctx.principal, args);
      },
      playlistGroups: (_, args, ctx) => {
        guardQuery(ctx.principal, 'playlistGroups');
        return listGroups(repo.playlists, ctx.principal, args.tree === true);
      },
    },
    Playlist: {
      __resolveReference: (ref, ctx) => {
        guardEntity(ctx.principal, 'Playlist');
        return playlistLoader(repo, ctx).load(ref.id);
      },
      sources: (p) => playOrder(p.sources ?? []),
      calculatedDuration: (p) => calculatedDuration(p.sources ?? []),
      tags: (p) => p.tags ?? [],
      createdOn: (p) => isoSeconds(p.createdAt),
      updatedOn: (p) => isoSeconds(p.updatedAt),
    },
    PlaylistSource: {
      // The file's current name and address; reading them is part of reading the playlist (Playlists_View).
      media: async (s, _, ctx) => {
        if (!s.mediaId) return null;
        const m = await mediaLoader(repo, ctx).load(s.mediaId);
        return m ? { id: m.id, fileName: m.fileName, fileUrl: m.fileUrl } : null;
      },
    },
  };
}
