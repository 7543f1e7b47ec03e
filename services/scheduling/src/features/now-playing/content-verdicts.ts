/**
 * nowPlaying's and deviceTimeline's word on content expiry (issue 37.3): which sources of the
 * winner's content are left out at an instant because of their validity window, read from the same
 * player content the manifest is cut from, so the verdict and the screen agree.
 */
import { isoSeconds, type Principal } from '@pylon/kit';
import { cutAtContentEdges, playlistsOf, skippedSourcesAt, type ManifestContent, type SkippedSource } from '../../domain/content-validity.js';
import type { SchedulePlan } from '../../domain/plan.js';
import type { Segment } from '../../domain/resolution.js';
import type { Schedule } from '../../shared/schedule.repository.js';
import type { SchedulingRuntime } from '../../runtime.js';

export interface SkippedContent extends Omit<SkippedSource, 'state'> {
  verdict: SkippedSource['state'];
  reason: string;
}

export interface ContentVerdicts {
  skipped: SkippedContent[];
  /** Sources the content has, valid or not. */
  total: number;
}

export async function contentVerdicts(rt: SchedulingRuntime, caller: Principal, winner: Schedule | null, at: number): Promise<ContentVerdicts> {
  const playlistIds = winner?.type === 'PLAYLIST' && winner.playlistId ? [winner.playlistId] : [];
  const templateIds = winner?.type === 'TEMPLATE' && winner.templateId ? [winner.templateId] : [];
  if (!playlistIds.length && !templateIds.length) return { skipped: [], total: 0 };
  const found = await rt.content.playerContent(caller, { playlistIds, templateIds });
  const c = found.playlists.get(playlistIds[0] ?? '') ?? found.templates.get(templateIds[0] ?? '');
  return { skipped: skippedAt(c, at), total: playlistsOf(c).reduce((n, p) => n + p.sources.length, 0) };
}

/** The content's sources left out at `at`, with their verdicts in words. */
function skippedAt(c: ManifestContent | null | undefined, at: number): SkippedContent[] {
  return skippedSourcesAt(c, at).map(({ state, ...s }) => ({
    ...s,
    validFrom: isoSeconds(s.validFrom),
    validUntil: isoSeconds(s.validUntil),
    verdict: state,
    reason: state === 'EXPIRED' ? `left out: expired at ${isoSeconds(s.validUntil)}` : `left out: valid from ${isoSeconds(s.validFrom)}`,
  }));
}

export interface TimelinePiece {
  from: number;
  to: number;
  schedule: Schedule | null;
  /** The winner's sources left out throughout the piece. */
  skipped: SkippedContent[];
}

/**
 * deviceTimeline's segments cut where a source of the winner's content expires or becomes valid,
 * each piece with what it leaves out (one content read for every winner of the range).
 */
export async function timelineVerdicts(
  rt: SchedulingRuntime,
  caller: Principal,
  segments: readonly Segment<SchedulePlan<Schedule>>[],
): Promise<TimelinePiece[]> {
  const winners = segments.flatMap((s) => (s.winner ? [s.winner.schedule] : []));
  const playlistIds = [...new Set(winners.flatMap((w) => (w.type === 'PLAYLIST' && w.playlistId ? [w.playlistId] : [])))];
  const templateIds = [...new Set(winners.flatMap((w) => (w.type === 'TEMPLATE' && w.templateId ? [w.templateId] : [])))];
  const found = playlistIds.length || templateIds.length ? await rt.content.playerContent(caller, { playlistIds, templateIds }) : null;
  const contentOf = (w: Schedule | null): ManifestContent | undefined =>
    !w || !found
      ? undefined
      : w.type === 'PLAYLIST'
        ? found.playlists.get(w.playlistId ?? '')
        : w.type === 'TEMPLATE'
          ? found.templates.get(w.templateId ?? '')
          : undefined;
  return segments.flatMap((seg) => {
    const schedule = seg.winner?.schedule ?? null;
    const c = contentOf(schedule);
    return cutAtContentEdges({ from: seg.from, to: seg.to }, c).map((p) => ({ ...p, schedule, skipped: skippedAt(c, p.from) }));
  });
}

/** The winner's reason with what expiry leaves out of it. */
export function expiryReason(base: string, v: ContentVerdicts): string {
  if (!v.skipped.length) return base;
  if (v.skipped.length === v.total) return `${base}, but all its content is expired or not yet valid: the screen shows nothing`;
  return `${base}; ${v.skipped.length} of its ${v.total} sources left out (expired or not yet valid)`;
}
