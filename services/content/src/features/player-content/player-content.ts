/**
 * Playlists and templates as a player needs them: sources in play order, each file with a fetchable
 * (signed, expiring) address, its size and SHA-512; a template's modules with their playlists.
 * What the scheduling subgraph's ContentDirectory.playerContent answers (in-process in the all-in-one).
 */
import { effectiveWindow, templateLayoutOf, type PlayerMedia, type PlayerPlaylist, type PlayerSource, type PlayerTemplate } from '@pylon/kit';
import type { Media, Playlist, Template } from '../../shared/content.repository.js';
import { playOrder } from '../../domain/playlist.js';
import type { ContentRuntime } from '../../runtime.js';

export type { PlayerMedia, PlayerPlaylist, PlayerSource, PlayerTemplate };

export interface PlayerContent {
  playlists: Map<string, PlayerPlaylist>;
  templates: Map<string, PlayerTemplate>;
}

export async function playerContent(
  rt: ContentRuntime,
  tenant: string,
  refs: { playlistIds: readonly string[]; templateIds: readonly string[] },
): Promise<PlayerContent> {
  const templates: Map<string, Template> = refs.templateIds.length ? await rt.repo.templates.findByIds(tenant, refs.templateIds) : new Map();
  const playlistIds = new Set(refs.playlistIds);
  for (const t of templates.values()) for (const m of t.modules ?? []) if (m.playlistId) playlistIds.add(m.playlistId);
  const playlists: Map<string, Playlist> = playlistIds.size ? await rt.repo.playlists.findByIds(tenant, [...playlistIds]) : new Map();
  const mediaIds = new Set<string>();
  for (const p of playlists.values()) for (const s of p.sources ?? []) if (s.mediaId) mediaIds.add(s.mediaId);
  const media: Map<string, Media> = mediaIds.size ? await rt.repo.media.findByIds(tenant, [...mediaIds]) : new Map();

  const mediaOf = (id: string | null): PlayerMedia | null => {
    const m = id ? media.get(id) : undefined;
    return m ? playerFile(rt, m) : null;
  };
  const playlistOf = (p: Playlist): PlayerPlaylist => ({
    kind: 'playlist',
    id: p.id,
    name: p.name,
    sources: playOrder(p.sources ?? []).map((s) => {
      const file = s.mediaId ? media.get(s.mediaId) : undefined;
      return {
        id: s.id,
        name: s.name,
        type: s.type,
        interval: s.interval,
        media: mediaOf(s.mediaId),
        url: s.url ?? null,
        // The file's start/end dates are its validity window: the source plays within both.
        ...effectiveWindow(s, file && { validFrom: file.startDate, validUntil: file.endDate }),
      };
    }),
  });
  const outPlaylists = new Map([...playlists.values()].map((p) => [p.id, playlistOf(p)] as const));
  const outTemplates = new Map(
    [...templates.values()].map((t) => {
      const layout = templateLayoutOf(t, (m) => (m.playlistId ? (outPlaylists.get(m.playlistId) ?? null) : null));
      return [t.id, { kind: 'template' as const, ...layout }] as const;
    }),
  );
  return { playlists: outPlaylists, templates: outTemplates };
}

/** A media file as a player fetches it. */
const playerFile = (rt: ContentRuntime, m: Media): PlayerMedia => ({
  id: m.id,
  name: m.name,
  mimeType: m.mimeType ?? null,
  url: m.blobKey ? rt.urls.urlFor(m.accountId, m.blobKey) : m.fileUrl,
  size: m.fileSize ?? null,
  sha512: m.sha512 ?? null,
  duration: m.duration ?? null,
});

/** The tenant's media among the ids as a player fetches them (an emergency override's media item); unknown ids are absent. */
export async function playerMedia(rt: ContentRuntime, tenant: string, ids: readonly string[]): Promise<Map<string, PlayerMedia>> {
  const found: Map<string, Media> = ids.length ? await rt.repo.media.findByIds(tenant, ids) : new Map();
  return new Map([...found.values()].map((m) => [m.id, playerFile(rt, m)] as const));
}
