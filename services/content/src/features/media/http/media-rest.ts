/** The reference's REST Media body (snake_case, tags as one comma-separated string) for the upload endpoints. */
import { isoSeconds } from '@pylon/kit';
import type { Media } from '../../../shared/content.repository.js';
import type { ContentRuntime } from '../../../runtime.js';

export function restMedia(rt: ContentRuntime, m: Media): Record<string, unknown> {
  return {
    id: m.id,
    name: m.name,
    group_id: m.groupId,
    group_name: m.groupName,
    tags: (m.tags ?? []).join(','),
    advertiser_id: null,
    is_shared: false,
    start_date: isoSeconds(m.startDate ?? null),
    end_date: isoSeconds(m.endDate ?? null),
    mime_type: m.mimeType,
    file_size: m.fileSize ?? 0,
    file_name: m.fileName,
    file_url: m.blobKey ? rt.urls.urlFor(m.accountId, m.blobKey) : m.fileUrl,
    thumbnail_url: m.thumbKey ? rt.urls.urlFor(m.accountId, m.thumbKey) : m.thumbnailUrl,
    uploaded_on: isoSeconds(m.createdAt),
    uploaded_by_id: null,
    sha_512: m.sha512 ?? null,
    width: m.width,
    height: m.height,
  };
}

/** The reference sends tags as one string; commas separate them. */
export function tagsOf(raw: unknown): string[] | undefined {
  if (typeof raw !== 'string') return undefined;
  const tags = raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return tags;
}
