/**
 * GraphQL content records -> the reference's REST bodies (Media, Playlist, Source, Template,
 * Module): snake_case, `tags` one comma-separated string, enum values in the reference's spelling
 * (MULTIMEDIA -> Multimedia, YOU_TUBE -> YouTube), members Pylon does not keep present with the
 * reference's neutral value so generated clients read them.
 */
import type { RestMediaFragment, RestPlaylistFragment, RestTemplateFragment } from '@pylon/kit/generated/rest-operations.generated';
import type { RestSchema } from './types.js';

/** A playlist source's media as the RestPlaylist fragment selects it (every media member, tags nullable). */
type SourceMedia = NonNullable<RestPlaylistFragment['sources'][number]['media']>;
type SourceData = RestPlaylistFragment['sources'][number];

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

export function toRestMedia(m: RestMediaFragment | SourceMedia): RestSchema<'Media'> {
  const body: RestSchema<'Media'> = {
    id: m.id,
    // A playlist source's media types its name nullable (the fragment's selection); a stored media always has one.
    name: m.name as string,
    group_id: str(m.groupId),
    group_name: str(m.groupName),
    tags: tagString(m.tags),
    advertiser_id: null,
    is_shared: false,
    start_date: str(m.startDate),
    end_date: str(m.endDate),
    mime_type: str(m.mimeType),
    file_size: int(m.fileSize) ?? undefined,
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
  if (body.file_size === undefined) delete body.file_size;
  return body;
}

function toRestSource(s: SourceData): RestSchema<'Source'> {
  const media = s.media;
  return {
    id: s.id,
    name: str(s.name),
    type: enumToRest(s.type) as RestSchema<'SourceType'>,
    sequence: s.sequence,
    media_id: media ? media.id : null,
    template_id: null,
    playlist_id: null,
    value: null,
    interval: int(s.interval),
    ...(media ? { media: toRestMedia(media) } : {}),
    loop_policy_type: 'Default',
    conditions: [],
    valid_from: str(s.validFrom),
    valid_until: str(s.validUntil),
  };
}

export function toRestPlaylist(p: RestPlaylistFragment): RestSchema<'Playlist'> {
  return {
    id: p.id,
    name: p.name,
    group_id: str(p.groupId),
    group_name: str(p.groupName),
    tags: tagString(p.tags),
    type: enumToRest(p.type) as RestSchema<'PlaylistType'>,
    duration: int(p.duration),
    is_random_start: false,
    created_on: str(p.createdOn),
    created_by_id: null,
    modified_on: str(p.updatedOn),
    modified_by_id: null,
    sources: (p.sources ?? []).map(toRestSource),
  };
}

export function toRestTemplate(t: RestTemplateFragment): RestSchema<'Template'> {
  const modules = t.modules ?? [];
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
