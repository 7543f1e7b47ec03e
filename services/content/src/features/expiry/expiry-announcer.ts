/**
 * content.expired (issue 37.3): when a source's or a file's validUntil is written, the process that
 * wrote it arms a timer for that instant; when it fires, the record is read again and the event goes
 * out only if it still expires then (a later edit re-arms, and the stale timer finds a different
 * instant and says nothing). Only the writing process arms it, so replicas do not repeat it.
 * Limits: a restart loses the timers of that process (the manifests still drop the content: they
 * are cut by the clock, not by this event), and instants beyond setTimeout's range (~24.8 days) are
 * not armed.
 */
import type { ContentRuntime } from '../../runtime.js';

const MAX_DELAY_MS = 2 ** 31 - 1;
/** One timer per source or file, per runtime (a test's runtimes stay apart). */
const timers = new WeakMap<ContentRuntime, Map<string, NodeJS.Timeout>>();

export interface ExpiryTarget {
  playlistId: string | null;
  sourceId: string | null;
  mediaId: string | null;
}

/** Arms (or re-arms) the announcement of `target` expiring at `validUntil` (ISO; null disarms). */
export function armExpiry(rt: ContentRuntime, tenant: string, target: ExpiryTarget, validUntil: string | null | undefined): void {
  if (!rt.pushEvents) return;
  const key = `${tenant}\n${target.playlistId ?? ''}\n${target.sourceId ?? ''}\n${target.mediaId ?? ''}`;
  const own = timers.get(rt) ?? new Map<string, NodeJS.Timeout>();
  timers.set(rt, own);
  clearTimeout(own.get(key));
  own.delete(key);
  const at = validUntil ? Date.parse(validUntil) : Number.NaN;
  const delay = at - Date.now();
  if (!(delay > 0 && delay <= MAX_DELAY_MS)) return;
  const t = setTimeout(() => {
    own.delete(key);
    void stillExpiring(rt, tenant, target, at)
      .then((media) => {
        if (media === undefined) return;
        rt.pushEvents?.emit(
          tenant,
          'content.expired',
          { playlist_id: target.playlistId, source_id: target.sourceId, media_id: media, valid_until: new Date(at).toISOString().replace('.000Z', 'Z') },
          at,
        );
      })
      .catch((e: unknown) => rt.logger?.warn({ err: e }, 'content.expired not announced'));
  }, delay);
  t.unref();
  own.set(key, t);
}

/** The file id to announce (null: none) when the record still expires at `at`; undefined: it changed or is gone. */
async function stillExpiring(rt: ContentRuntime, tenant: string, target: ExpiryTarget, at: number): Promise<string | null | undefined> {
  if (target.playlistId && target.sourceId) {
    const p = (await rt.repo.playlists.findByIds(tenant, [target.playlistId])).get(target.playlistId);
    const s = p?.sources?.find((x) => x.id === target.sourceId);
    return s?.validUntil && Date.parse(s.validUntil) === at ? s.mediaId : undefined;
  }
  if (!target.mediaId) return undefined;
  const m = (await rt.repo.media.findByIds(tenant, [target.mediaId])).get(target.mediaId);
  return m?.endDate && Date.parse(m.endDate) === at ? m.id : undefined;
}
