import type { Principal } from '@pylon/kit';

export type ContentKind = 'playlist' | 'template';

/**
 * The caller's playlists and templates, as the content subgraph knows them. In-process in the
 * all-in-one (content's repository), over content's GraphQL as the caller when distributed.
 */
export interface ContentDirectory {
  /** Which of `ids` are playlists (or templates) of the caller's account. */
  existing(caller: Principal, kind: ContentKind, ids: readonly string[]): Promise<Set<string>>;
}
