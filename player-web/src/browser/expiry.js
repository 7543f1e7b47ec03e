// Content expiry on the screen (issue 37.3): a source carries the manifest's valid_from/valid_until
// (ISO 8601; absent: open) and is shown only while the server's time (clock.js serverNow, the
// corrected clock, never the manifest's age) lies in [valid_from, valid_until). The server already
// leaves out what is outside its window, but a screen offline with a cached manifest must still drop
// an item at the second it expires: the zone asks validAt before showing anything, ends the item on
// glass at its valid_until (atServerTime: one timer at the edge, re-armed in steps so a corrected
// clock is honoured), and never logs a play of what it did not show.
import { serverNow } from './clock.js';

/** Longest single sleep towards an edge: a clock corrected meanwhile (a ping's offset) moves the edge by at most this late. */
const REARM_MS = 10_000;

const ms = (iso) => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

/** Whether the source may be shown at server time `t` (the end is exclusive). */
export function validAt(source, t) {
  const from = ms(source.valid_from);
  const until = ms(source.valid_until);
  return (from === null || t >= from) && (until === null || t < until);
}

/** The first valid_from or valid_until after `t` among the sources; null: none ahead. */
export function nextEdge(sources, t) {
  let next = null;
  for (const s of sources) {
    for (const e of [ms(s.valid_from), ms(s.valid_until)]) if (e !== null && e > t && (next === null || e < next)) next = e;
  }
  return next;
}

/**
 * Resolves true once the server's time reaches `t` (ms), false when `signal` aborts first; never
 * when `t` is null (nothing ahead) unless aborted.
 */
export function atServerTime(t, signal) {
  return new Promise((resolve) => {
    let timer = null;
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    if (signal) {
      if (signal.aborted) return resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    if (t === null) return;
    const tick = () => {
      const left = t - serverNow();
      if (left <= 0) {
        if (signal) signal.removeEventListener('abort', onAbort);
        return resolve(true);
      }
      timer = setTimeout(tick, Math.min(left, REARM_MS));
    };
    tick();
  });
}
