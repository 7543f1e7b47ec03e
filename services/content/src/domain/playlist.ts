import type { Grouped } from './group.js';

/** GraphQL enum PlaylistType; stored as these values. */
export const PLAYLIST_TYPES = ['MULTIMEDIA', 'SLIDESHOW', 'TEMPLATE', 'MARQUEE'] as const;
export type PlaylistType = (typeof PLAYLIST_TYPES)[number];

/** GraphQL enum SourceType; stored as these values. */
export const SOURCE_TYPES = [
  'AUDIO',
  'COMMAND',
  'FLASH',
  'GADGET',
  'IMAGE',
  'PDF',
  'PLACE_EXCHANGE',
  'PLAYLIST',
  'POWER_POINT',
  'RSS',
  'SVG',
  'TEMPLATE',
  'TEXT',
  'TWITTER',
  'URL',
  'VIDEO',
  'VISTAR_MEDIA',
  'WEB_PAGE',
  'YOU_TUBE',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** One entry of a playlist, stored inside the playlist document. */
export interface PlaylistSourceRecord {
  id: string;
  name: string | null;
  type: SourceType;
  /** Play position; lower plays first. */
  sequence: number;
  /** Seconds the source is shown. */
  interval: number | null;
  /** The media file played, when the source has one. */
  mediaId: string | null;
  /** A web page's address (WEB_PAGE sources, no media file): players show it in a sandboxed frame. */
  url?: string | null;
  /** ISO 8601 instant from which the source may play (issue 37.3); null or absent: no limit. */
  validFrom?: string | null;
  /** ISO 8601 instant from which it no longer plays; null or absent: no limit. */
  validUntil?: string | null;
}

export interface PlaylistRecord extends Grouped {
  name: string;
  type: PlaylistType;
  /** Seconds the playlist is set to fill (with loop policies); null when not set. */
  duration: number | null;
  sources: PlaylistSourceRecord[];
}

/** Sources in play order: ascending sequence, ties by id so the order is stable. */
export function playOrder(sources: readonly PlaylistSourceRecord[]): PlaylistSourceRecord[] {
  return [...sources].sort((a, b) => a.sequence - b.sequence || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Seconds one pass through the sources takes: the sum of their intervals; a source without one
 * plays its media for the media's own duration (rounded up to whole seconds), or adds nothing
 * when there is none (images without an interval, deleted files).
 */
export function calculatedDuration(
  sources: readonly PlaylistSourceRecord[],
  mediaDuration: (mediaId: string) => number | null | undefined = () => null,
): number {
  return sources.reduce((sum, s) => sum + (s.interval ?? (s.mediaId ? Math.ceil(mediaDuration(s.mediaId) ?? 0) : 0)), 0);
}

/** The sources in play order with sequences 1..n: what every change stores, so sequences stay dense. */
export function densify(sources: readonly PlaylistSourceRecord[]): PlaylistSourceRecord[] {
  return playOrder(sources).map((s, i) => ({ ...s, sequence: i + 1 }));
}
