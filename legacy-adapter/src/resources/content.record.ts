/** Legacy media, playlist and template records: the GraphQL fields in snake_case (kit snakeRecord), tags as a list like the legacy device. */
import { snakeRecord } from '@pylon/kit';
import type { LegacyMediaFragment, LegacyPlaylistFragment } from '@pylon/kit/generated/legacy-operations.generated';
import type { RestTemplateFragment } from '@pylon/kit/generated/rest-operations.generated';

const MEDIA_FIELDS = [
  'id',
  'name',
  'file_name',
  'mime_type',
  'file_size',
  'file_url',
  'thumbnail_url',
  'uploaded_on',
  'width',
  'height',
  'tags',
  'group_id',
  'group_name',
  // Content expiry (issue 37.3): the file's validity window, ISO 8601, null when open.
  'valid_from',
  'valid_until',
] as const;
const PLAYLIST_FIELDS = ['id', 'name', 'type', 'duration', 'calculated_duration', 'group_id', 'group_name', 'tags', 'updated_on'] as const;
const SOURCE_FIELDS = ['id', 'name', 'type', 'sequence', 'interval', 'valid_from', 'valid_until'] as const;
const SOURCE_MEDIA_FIELDS = ['id', 'file_name', 'file_url', 'mime_type', 'file_size'] as const;
const TEMPLATE_FIELDS = ['id', 'name', 'width', 'height', 'orientation', 'group_id', 'group_name', 'tags'] as const;
const MODULE_FIELDS = ['id', 'name', 'type', 'left', 'top', 'width', 'height', 'playlist_id'] as const;

export type LegacyMedia = Record<(typeof MEDIA_FIELDS)[number], unknown>;
export interface LegacySource extends Record<(typeof SOURCE_FIELDS)[number], unknown> {
  media: Record<(typeof SOURCE_MEDIA_FIELDS)[number], unknown> | null;
}
export interface LegacyPlaylist extends Record<(typeof PLAYLIST_FIELDS)[number], unknown> {
  sources: LegacySource[];
}
export interface LegacyTemplate extends Record<(typeof TEMPLATE_FIELDS)[number], unknown> {
  modules: Record<(typeof MODULE_FIELDS)[number], unknown>[];
}

export const toLegacyMedia = (m: LegacyMediaFragment): LegacyMedia => snakeRecord(m, MEDIA_FIELDS);

export function toLegacyPlaylist(p: LegacyPlaylistFragment): LegacyPlaylist {
  return {
    ...snakeRecord(p, PLAYLIST_FIELDS),
    sources: (p.sources ?? []).map((s) => ({ ...snakeRecord(s, SOURCE_FIELDS), media: s.media ? snakeRecord(s.media, SOURCE_MEDIA_FIELDS) : null })),
  };
}

export function toLegacyTemplate(t: RestTemplateFragment): LegacyTemplate {
  return { ...snakeRecord(t, TEMPLATE_FIELDS), modules: (t.modules ?? []).map((m) => snakeRecord(m, MODULE_FIELDS)) };
}
