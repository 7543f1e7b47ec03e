/**
 * GraphQL content records -> the reference's REST bodies (Media, Playlist, Source, Template,
 * Module): snake_case, `tags` one comma-separated string, enum values in the reference's spelling
 * (MULTIMEDIA -> Multimedia, YOU_TUBE -> YouTube), members Pylon does not keep present with the
 * reference's neutral value so generated clients read them.
 */
import { isRecord, type GqlRecord } from './shape.js';

/** GraphQL enum value -> the reference's PascalCase value. */
export const enumToRest = (v: unknown): unknown =>
  typeof v === 'string'
    ? v
        .toLowerCase()
        .split('_')
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join('')
    : v;

/** The reference's PascalCase value -> GraphQL enum value (unknown values are refused by the schema). */
export const enumToGql = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase() : v);

const tagString = (v: unknown): string => (Array.isArray(v) ? v.join(',') : '');
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : null);

export function toRestMedia(m: GqlRecord): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: m.id,
    name: m.name,
    group_id: str(m.groupId),
    group_name: str(m.groupName),
    tags: tagString(m.tags),
    advertiser_id: null,
    is_shared: false,
    start_date: str(m.startDate),
    end_date: str(m.endDate),
    mime_type: str(m.mimeType),
    file_size: int(m.fileSize),
    file_name: str(m.fileName),
    file_url: str(m.fileUrl),
    thumbnail_url: str(m.thumbnailUrl),
    uploaded_on: str(m.uploadedOn),
    uploaded_by_id: null,
    sha_512: str(m.sha512),
    width: int(m.width),
    height: int(m.height),
  };
  // The reference types file_size as a non-nullable integer: absent rather than null when unknown.
  if (body.file_size === null) delete body.file_size;
  return body;
}

function toRestSource(s: GqlRecord): Record<string, unknown> {
  const media = isRecord(s.media) ? s.media : null;
  return {
    id: s.id,
    name: str(s.name),
    type: enumToRest(s.type),
    sequence: s.sequence,
    media_id: media ? media.id : null,
    template_id: null,
    playlist_id: null,
    value: null,
    interval: int(s.interval),
    ...(media ? { media: toRestMedia(media) } : {}),
    loop_policy_type: 'Default',
    conditions: [],
  };
}

export function toRestPlaylist(p: GqlRecord): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    group_id: str(p.groupId),
    group_name: str(p.groupName),
    tags: tagString(p.tags),
    type: enumToRest(p.type),
    duration: int(p.duration),
    is_random_start: false,
    created_on: str(p.createdOn),
    created_by_id: null,
    modified_on: str(p.updatedOn),
    modified_by_id: null,
    sources: Array.isArray(p.sources) ? p.sources.filter(isRecord).map(toRestSource) : [],
  };
}

export function toRestTemplate(t: GqlRecord): Record<string, unknown> {
  const modules = Array.isArray(t.modules) ? t.modules.filter(isRecord) : [];
  return {
    id: t.id,
    name: t.name,
    group_id: str(t.groupId),
    group_name: str(t.groupName),
    tags: tagString(t.tags),
    created_on: str(t.createdOn),
    created_by_id: null,
    modified_on: str(t.updatedOn),
    modified_by_id: null,
    script: null,
    back_color: null,
    width: int(t.width),
    height: int(t.height),
    orientation: int(t.orientation),
    modules: modules.map((m, i) => ({
      id: m.id,
      name: str(m.name),
      type: str(m.type),
      left: m.left,
      top: m.top,
      width: m.width,
      height: m.height,
      playlist_id: str(m.playlistId),
      sequence: i + 1,
    })),
  };
}
