import type { PlayerMedia as ManifestMedia, PlayerPlaylist as ManifestPlaylist, PlayerTemplate as ManifestTemplate, Principal } from '@pylon/kit';

export type ContentKind = 'playlist' | 'template';

/** The content a player plays, as content answers it (kit; the same in process and over GraphQL). */
export type { ManifestMedia, ManifestPlaylist, ManifestTemplate };

/**
 * The caller's playlists and templates, as the content subgraph knows them. In-process in the
 * all-in-one (content's repository), over content's GraphQL as the caller when distributed.
 */
export interface ContentDirectory {
  /** Which of `ids` are playlists (or templates) of the caller's account. */
  existing(caller: Principal, kind: ContentKind, ids: readonly string[]): Promise<Set<string>>;
  /** The caller's playlists and templates among the ids, as a player plays them (absent: unknown or deleted). */
  playerContent(
    caller: Principal,
    refs: { playlistIds: readonly string[]; templateIds: readonly string[] },
  ): Promise<{ playlists: Map<string, ManifestPlaylist>; templates: Map<string, ManifestTemplate> }>;
  /** The caller's media among the ids, as a player fetches them (absent: unknown, foreign or deleted). */
  playerMedia(caller: Principal, ids: readonly string[]): Promise<Map<string, ManifestMedia>>;
}
