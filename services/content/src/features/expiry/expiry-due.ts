/**
 * Content expiry announcements (issue 37.3), planned where they are decided and made by a sweep:
 *
 *   source/file write ──planDue──> [due-time set: one entry per target] ──sweep at dueAt──>
 *     the record read again: same instant?  yes: claim the entry (its version), announce
 *                                           moved: follow it (a write raced its entry's)
 *                                           lifted or passed: remove it, say nothing
 *
 * Two kinds of entries: `expired` (a source's or file's validUntil: content.expired at that
 * instant) and `runs_empty` (when a playlist has no valid source left, or a file expires:
 * content.running_empty the lead before it, so an alert opens while there is time to act). The
 * entries are stored, so a restart loses none and any instant ahead is planned; replicas sweeping
 * together race on an entry's version, so each instant is announced once.
 */
import { instantMs, type Logger } from '@pylon/kit';
import type { ContentRuntime } from '../../runtime.js';
import { runsEmptyAt } from '../../domain/runs-empty.js';
import type { DueEntry, DueKind, DueTarget } from './content-due.repository.js';

/** The targets a playlist's source write may change: the source's expiry (when one is named), the playlist's end. */
export const playlistTargets = (playlistId: string, sourceId?: string | null): DueTarget[] => [
  ...(sourceId ? [{ kind: 'expired' as const, playlistId, sourceId, mediaId: null }] : []),
  { kind: 'runs_empty', playlistId, sourceId: null, mediaId: null },
];

/** The targets a file's endDate write changes: its expiry, its end, and the end of every playlist playing it. */
export const mediaTargets = (rt: ContentRuntime, account: string, mediaId: string) => async (): Promise<DueTarget[]> => {
  const playlists = await rt.repo.playlists.usingMedia(account, mediaId);
  return [
    { kind: 'expired', playlistId: null, sourceId: null, mediaId },
    { kind: 'runs_empty', playlistId: null, sourceId: null, mediaId },
    ...playlists.map((p) => ({ kind: 'runs_empty' as const, playlistId: p.id, sourceId: null, mediaId: null })),
  ];
};

/** What a target holds now: the instant its entry is about (null: none), and what an announcement names. */
export interface TargetNow {
  at: number | null;
  /** The file (a source's file for a source); null for a web page source or a playlist. */
  mediaId: string | null;
  name: string;
}

const NONE: TargetNow = { at: null, mediaId: null, name: '' };

/** Reads the target's record (the playlist, or the file) and the instant it has now. */
export async function targetNow(rt: ContentRuntime, account: string, t: DueTarget): Promise<TargetNow> {
  if (t.mediaId) {
    const m = await rt.repo.media.findByIds(account, [t.mediaId]).then((found) => found.get(t.mediaId!));
    return m ? { at: instantMs(m.endDate), mediaId: m.id, name: m.name } : NONE;
  }
  if (!t.playlistId) return NONE;
  const p = await rt.repo.playlists.findByIds(account, [t.playlistId]).then((found) => found.get(t.playlistId!));
  if (!p) return NONE;
  const sources = p.sources ?? [];
  if (t.kind === 'expired') {
    const s = sources.find((x) => x.id === t.sourceId);
    return s ? { at: instantMs(s.validUntil), mediaId: s.mediaId, name: s.name ?? p.name } : NONE;
  }
  const ids = [...new Set(sources.flatMap((s) => (s.mediaId ? [s.mediaId] : [])))];
  const files = await rt.repo.media.findByIds(account, ids);
  const ends = new Map([...files].map(([id, m]) => [id, m.endDate ?? null]));
  return { at: runsEmptyAt(sources, ends), mediaId: null, name: p.name };
}

/** When the sweep acts on an entry about `at`. */
export const dueAtOf = (rt: ContentRuntime, kind: DueKind, at: number): number => (kind === 'expired' ? at : at - rt.settings.runsEmptyLeadSeconds * 1000);

/**
 * Writes the targets' entries from their records as stored now (called after the write that
 * changed them). A failure is logged, not thrown: the write itself is stored, and the screens
 * drop expired content by the clock whatever is announced.
 */
export async function planDue(rt: ContentRuntime, account: string, targets: DueTarget[] | (() => Promise<DueTarget[]>)): Promise<void> {
  const due = rt.due;
  if (!due) return;
  try {
    const now = rt.now();
    for (const t of typeof targets === 'function' ? await targets() : targets) {
      const { at } = await targetNow(rt, account, t);
      // Lifted, or already past when written: nothing to announce ahead.
      if (at === null || at <= now) await due.drop(account, t);
      else await due.put({ ...t, account, at, dueAt: dueAtOf(rt, t.kind, at) });
    }
  } catch (e) {
    warn(rt.logger, e);
  }
}

const warn = (logger: Logger | undefined, e: unknown) => logger?.warn({ err: e }, 'content expiry not planned; the next write of it plans it');

/** Entries handled per sweep at most (the rest are due on the next one). */
export const DUE_BATCH = 500;

export interface DueReport {
  /** content.expired announced. */
  expired: number;
  /** content.running_empty announced. */
  runningEmpty: number;
}

/** Announces what is due at `rt.now()`: content.expired and content.running_empty, each once. */
export async function sweepDue(rt: ContentRuntime): Promise<DueReport> {
  const report: DueReport = { expired: 0, runningEmpty: 0 };
  if (!rt.due || !rt.pushEvents) return report;
  const now = rt.now();
  for (const entry of await rt.due.due(now, DUE_BATCH)) {
    try {
      const won = await claim(rt, entry, now);
      if (won) report[won === 'expired' ? 'expired' : 'runningEmpty']++;
    } catch (e) {
      rt.logger?.warn({ err: e, entry: entry.id }, 'content expiry not announced; the next sweep tries again');
    }
  }
  if (report.expired || report.runningEmpty) rt.logger?.info(report, 'content expiry announced');
  return report;
}

/** Settles one due entry; answers its kind when this process won it and announced. */
async function claim(rt: ContentRuntime, entry: DueEntry, now: number): Promise<DueKind | null> {
  const due = rt.due!;
  // Announced already (running empty): kept until its instant so that it is not repeated; now it goes.
  if (entry.announced) {
    await due.settle(entry);
    return null;
  }
  const cur = await targetNow(rt, entry.account, entry);
  if (cur.at !== entry.at) {
    // The record changed after its entry was written (two writes racing): follow it, or end the entry.
    if (cur.at !== null && cur.at > now) await due.move(entry, { at: cur.at, dueAt: dueAtOf(rt, entry.kind, cur.at), announced: false });
    else await due.settle(entry);
    return null;
  }
  const at = new Date(entry.at).toISOString().replace('.000Z', 'Z');
  if (entry.kind === 'expired') {
    if (!(await due.settle(entry))) return null;
    const data = { playlist_id: entry.playlistId, source_id: entry.sourceId, media_id: cur.mediaId, valid_until: at };
    rt.pushEvents!.emit(entry.account, 'content.expired', data, entry.at);
    return 'expired';
  }
  if (!(await due.move(entry, { at: entry.at, dueAt: Math.max(entry.at, now + 1), announced: true }))) return null;
  const data = { playlist_id: entry.playlistId, media_id: entry.mediaId, name: cur.name, runs_empty_at: at };
  rt.pushEvents!.emit(entry.account, 'content.running_empty', data, now);
  return 'runs_empty';
}

/**
 * Sweeps every `periodMs` in this process (unref'd; every replica does, the entries' versions
 * decide who announces); returns the stop function. `periodMs` 0: no sweep.
 */
export function startExpirySweep(rt: ContentRuntime, periodMs = rt.settings.expirySweepSeconds * 1000): () => Promise<void> {
  if (!(periodMs > 0) || !rt.due || !rt.pushEvents) return () => Promise.resolve();
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => sweepDue(rt)).catch((e: unknown) => rt.logger?.warn({ err: e }, 'content expiry sweep failed; it runs again next period'));
  }, periodMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
