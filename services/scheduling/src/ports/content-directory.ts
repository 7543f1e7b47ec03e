import type { Principal, TemplateLayout } from '@pylon/kit';

export type ContentKind = 'playlist' | 'template';

/** A file as a player fetches it. */
export interface ManifestMedia {
  id: string;
  name: string;
  mimeType: string | null;
  /** Signed, expiring address (relative to the API base unless content has a public base URL). */
  url: string | null;
  size: number | null;
  sha512: string | null;
  duration: number | null;
}

export interface ManifestPlaylist {
  kind: 'playlist';
  id: string;
  name: string;
  /**
   * `url`: a web page source's address (no media); absent or null for files. `validFrom`/`validUntil`:
   * the source's effective validity window (its own and its file's intersected), ISO 8601; absent or null: open.
   */
  sources: {
    id: string;
    name: string | null;
    type: string;
    interval: number | null;
    media: ManifestMedia | null;
    url?: string | null;
    validFrom?: string | null;
    validUntil?: string | null;
  }[];
}

export interface ManifestTemplate extends TemplateLayout<ManifestPlaylist> {
  kind: 'template';
}

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
