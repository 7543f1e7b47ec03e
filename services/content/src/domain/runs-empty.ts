/**
 * When content runs empty because of expiry (issue 37.3). A source ends at its effective
 * validUntil: its own or its file's (endDate), whichever comes first (kit's validity rule). A
 * playlist runs empty at the latest end among its sources: after it none of them can ever be valid
 * again. Never (null) when some source has no end, or when it has no sources (empty already, not
 * because of expiry). Sources not yet valid count by their end too: becoming valid later does not
 * keep the playlist from running empty after its last end.
 */
import { intersectWindows, windowOf } from '@pylon/kit';

export interface SourceEnd {
  validUntil?: string | null;
  mediaId: string | null;
}

/** Epoch ms after which none of `sources` is valid again; `fileEnds`: each file's endDate by id. */
export function runsEmptyAt(sources: readonly SourceEnd[], fileEnds: ReadonlyMap<string, string | null | undefined>): number | null {
  let last: number | null = null;
  for (const s of sources) {
    const file = s.mediaId ? fileEnds.get(s.mediaId) : null;
    const end = intersectWindows(windowOf(null, s.validUntil), windowOf(null, file)).validUntil;
    if (end === null) return null;
    if (last === null || end > last) last = end;
  }
  return last;
}
