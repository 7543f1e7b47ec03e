/**
 * Content validity (issue 37.3): a media file or a playlist source plays only within
 * [validFrom, validUntil), instants in UTC milliseconds; null on either side is open. A source's
 * effective window is its own intersected with its file's: the narrower wins on each side, so an
 * operator who limits either one is obeyed. The content subgraph validates windows, the scheduling
 * subgraph leaves out what is outside them and wakes screens at their edges; the web player repeats
 * the same rule in browser code (player-web/src/browser/expiry.js) against its corrected clock.
 */
import { AppError } from './errors.js';

export interface ValidityWindow {
  /** First instant it may play (ms); null: no lower limit. */
  validFrom: number | null;
  /** First instant it may no longer play (ms); null: no upper limit. */
  validUntil: number | null;
}

export type ValidityState = 'VALID' | 'NOT_YET_VALID' | 'EXPIRED';

export const OPEN_WINDOW: ValidityWindow = { validFrom: null, validUntil: null };

/** Where `t` lies relative to the window: the end is exclusive (at validUntil it has expired). */
export function validityAt(w: ValidityWindow, t: number): ValidityState {
  if (w.validFrom !== null && t < w.validFrom) return 'NOT_YET_VALID';
  if (w.validUntil !== null && t >= w.validUntil) return 'EXPIRED';
  return 'VALID';
}

/** The intersection of windows (the latest start, the earliest end). It may be empty: then nothing in it is ever valid. */
export function intersectWindows(...ws: ValidityWindow[]): ValidityWindow {
  let validFrom: number | null = null;
  let validUntil: number | null = null;
  for (const w of ws) {
    if (w.validFrom !== null && (validFrom === null || w.validFrom > validFrom)) validFrom = w.validFrom;
    if (w.validUntil !== null && (validUntil === null || w.validUntil < validUntil)) validUntil = w.validUntil;
  }
  return { validFrom, validUntil };
}

/** The first window edge strictly after `t` (when something becomes valid or expires); null: none ahead. */
export function nextValidityEdge(ws: Iterable<ValidityWindow>, t: number): number | null {
  let next: number | null = null;
  for (const w of ws) {
    for (const e of [w.validFrom, w.validUntil]) if (e !== null && e > t && (next === null || e < next)) next = e;
  }
  return next;
}

/** A stored ISO instant (or null) as milliseconds (null when absent or unparseable). */
export const instantMs = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

/** A window from stored ISO instants. */
export const windowOf = (from: string | null | undefined, until: string | null | undefined): ValidityWindow => ({
  validFrom: instantMs(from),
  validUntil: instantMs(until),
});

/**
 * A playlist source's effective window as ISO 8601 (second precision): its own intersected with its
 * file's (either may be absent). What content answers and scheduling's remote directory rebuilds.
 */
export function effectiveWindow(
  source: { validFrom?: string | null; validUntil?: string | null },
  file?: { validFrom?: string | null; validUntil?: string | null } | null,
): { validFrom: string | null; validUntil: string | null } {
  const w = intersectWindows(windowOf(source.validFrom, source.validUntil), windowOf(file?.validFrom, file?.validUntil));
  const out = (t: number | null) => (t === null ? null : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  return { validFrom: out(w.validFrom), validUntil: out(w.validUntil) };
}

/**
 * Checks an input window: each side an ISO 8601 instant with a zone or Z, or a bare date (UTC
 * midnight); a date-time without a zone is refused (it would be read in whatever zone the server
 * runs in). validFrom must be strictly before validUntil. Returned normalised to UTC.
 * Errors name the field as the caller spelt it (`names`: GraphQL's camelCase or REST's snake_case).
 */
export function checkValidityInput(
  input: { validFrom?: string | null; validUntil?: string | null },
  names: { validFrom: string; validUntil: string } = { validFrom: 'validFrom', validUntil: 'validUntil' },
): { validFrom: string | null; validUntil: string | null } {
  const one = (v: string | null | undefined, field: string): string | null => {
    if (v === null || v === undefined || v === '') return null;
    const ok =
      typeof v === 'string' && v.length <= 40 && /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d))?$/.test(v) && !Number.isNaN(Date.parse(v));
    if (!ok) throw new AppError('BAD_USER_INPUT', `${field} must be an ISO 8601 instant with a zone, e.g. 2026-12-31T23:00:00Z`, { field });
    return new Date(Date.parse(v)).toISOString().replace(/\.000Z$/, 'Z');
  };
  const validFrom = one(input.validFrom, names.validFrom);
  const validUntil = one(input.validUntil, names.validUntil);
  if (validFrom !== null && validUntil !== null && Date.parse(validUntil) <= Date.parse(validFrom)) {
    throw new AppError('BAD_USER_INPUT', `${names.validUntil} must be after ${names.validFrom}`, { field: names.validUntil });
  }
  return { validFrom, validUntil };
}
