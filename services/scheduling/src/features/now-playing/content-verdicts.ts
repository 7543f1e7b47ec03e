/**
 * nowPlaying's word on content expiry (issue 37.3): which sources of the winner's content are left
 * out at the instant because of their validity window, read from the same player content the
 * manifest is cut from, so the verdict and the screen agree.
 */
import { isoSeconds, type Principal } from '@pylon/kit';
import { playlistsOf, skippedSourcesAt, type SkippedSource } from '../../domain/content-validity.js';
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
  const skipped = skippedSourcesAt(c, at).map(({ state, ...s }) => ({
    ...s,
    validFrom: isoSeconds(s.validFrom),
    validUntil: isoSeconds(s.validUntil),
    verdict: state,
    reason: state === 'EXPIRED' ? `left out: expired at ${isoSeconds(s.validUntil)}` : `left out: valid from ${isoSeconds(s.validFrom)}`,
  }));
  return { skipped, total: playlistsOf(c).reduce((n, p) => n + p.sources.length, 0) };
}

/** The winner's reason with what expiry leaves out of it. */
export function expiryReason(base: string, v: ContentVerdicts): string {
  if (!v.skipped.length) return base;
  if (v.skipped.length === v.total) return `${base}, but all its content is expired or not yet valid: the screen shows nothing`;
  return `${base}; ${v.skipped.length} of its ${v.total} sources left out (expired or not yet valid)`;
}
