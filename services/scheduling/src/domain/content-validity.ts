/**
 * Content expiry in the manifest (issue 37.3): what a screen is sent is cut to the sources valid at
 * the instant an entry starts, and the manifest's next change is pulled forward to the first
 * validity edge ahead (a source expiring or becoming valid), so a screen switches to the re-cut
 * content exactly then, from its cached manifest too, and asks again. The rule itself (end
 * exclusive, source and file windows intersected) is kit's validity.ts.
 */
import { instantMs, mapTemplateLayout, nextValidityEdge, validityAt, type ValidityState, type ValidityWindow } from '@pylon/kit';
import type { ManifestPlaylist, ManifestTemplate } from '../ports/content-directory.js';

type Source = ManifestPlaylist['sources'][number];
export type ManifestContent = ManifestPlaylist | ManifestTemplate;

export const sourceWindow = (s: Source): ValidityWindow => ({ validFrom: instantMs(s.validFrom), validUntil: instantMs(s.validUntil) });

/** The playlists a piece of content plays (a template's modules' playlists). */
export const playlistsOf = (c: ManifestContent | null | undefined): ManifestPlaylist[] =>
  !c ? [] : c.kind === 'playlist' ? [c] : c.modules.flatMap((m) => (m.playlist ? [m.playlist] : []));

/** The content with only the sources valid at `t`. */
export function validContentAt<C extends ManifestContent>(c: C, t: number): C {
  const cut = (p: ManifestPlaylist): ManifestPlaylist => ({ ...p, sources: p.sources.filter((s) => validityAt(sourceWindow(s), t) === 'VALID') });
  if (c.kind === 'playlist') return cut(c) as C;
  return { ...c, ...mapTemplateLayout(c, cut) } as C;
}

/** The first instant after `t` at which a source of the content expires or becomes valid; null: none. */
export const nextContentEdge = (c: ManifestContent | null | undefined, t: number): number | null =>
  nextValidityEdge(
    playlistsOf(c).flatMap((p) => p.sources.map(sourceWindow)),
    t,
  );

/**
 * A stretch of time [from, to) cut at the validity edges of its content strictly inside it, so that
 * within each piece the same sources play (deviceTimeline's per-segment expiry).
 */
export function cutAtContentEdges<S extends { from: number; to: number }>(stretch: S, c: ManifestContent | null | undefined): S[] {
  const pieces: S[] = [];
  let start = stretch.from;
  for (let edge = nextContentEdge(c, start); edge !== null && edge < stretch.to; edge = nextContentEdge(c, edge)) {
    pieces.push({ ...stretch, from: start, to: edge });
    start = edge;
  }
  pieces.push({ ...stretch, from: start, to: stretch.to });
  return pieces;
}

export interface SkippedSource {
  playlistId: string;
  sourceId: string;
  name: string | null;
  state: Exclude<ValidityState, 'VALID'>;
  validFrom: string | null;
  validUntil: string | null;
}

/** The sources of the content left out at `t`, and why (expired, not yet valid). */
export function skippedSourcesAt(c: ManifestContent | null | undefined, t: number): SkippedSource[] {
  return playlistsOf(c).flatMap((p) =>
    p.sources.flatMap((s) => {
      const state = validityAt(sourceWindow(s), t);
      return state === 'VALID'
        ? []
        : [{ playlistId: p.id, sourceId: s.id, name: s.name, state, validFrom: s.validFrom ?? null, validUntil: s.validUntil ?? null }];
    }),
  );
}
