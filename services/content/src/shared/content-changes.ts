/**
 * Announces content changes that may alter what screens play: the playlists and templates touched,
 * a media edit expanded to the playlists playing the file and a playlist edit to the templates
 * playing it, so the subscriber (scheduling) only maps playlist/template ids to its schedules.
 */
import { announce, CHANNELS, type ContentChangedEvent } from '@pylon/kit';
import type { ContentRuntime } from '../runtime.js';

export async function contentChanged(
  rt: ContentRuntime,
  tenant: string,
  ids: { mediaIds?: readonly string[]; playlistIds?: readonly string[]; templateIds?: readonly string[] },
): Promise<void> {
  if (!rt.pubsub) return;
  try {
    const playlistIds = new Set(ids.playlistIds ?? []);
    for (const mediaId of ids.mediaIds ?? []) for (const p of await rt.repo.playlists.usingMedia(tenant, mediaId)) playlistIds.add(p.id);
    const templateIds = new Set(ids.templateIds ?? []);
    for (const playlistId of playlistIds) for (const t of await rt.repo.templates.usingPlaylist(tenant, playlistId)) templateIds.add(t.id);
    if (!playlistIds.size && !templateIds.size) return;
    const event: ContentChangedEvent = { accountId: tenant, playlistIds: [...playlistIds], templateIds: [...templateIds] };
    await announce(rt.pubsub, CHANNELS.contentChanged, event, (e) => rt.logger?.warn({ err: e }, 'content change not announced'));
  } catch (e) {
    rt.logger?.warn({ err: e }, 'content change not announced');
  }
}

/** playlist.changed / template.changed for one record (after it is stored). */
export function contentEvent(rt: ContentRuntime, tenant: string, kind: 'playlist' | 'template', id: string, change: 'created' | 'updated' | 'deleted'): void {
  if (kind === 'playlist') rt.pushEvents?.emit(tenant, 'playlist.changed', { playlist_id: id, change });
  else rt.pushEvents?.emit(tenant, 'template.changed', { template_id: id, change });
}
