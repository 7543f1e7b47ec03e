import type { Grouped } from './group.js';
import type { SourceType } from './playlist.js';

/** A stored media asset. Its upload time is the document's createdAt. */
export interface MediaRecord extends Grouped {
  name: string;
  fileName: string | null;
  mimeType: string | null;
  /** Bytes. */
  fileSize: number | null;
  /**
   * An external address for media not held in our blob store (seeded or migrated records). Files we
   * hold are served from `blobKey` through signed, expiring URLs computed when read.
   */
  fileUrl: string | null;
  thumbnailUrl: string | null;
  /** Pixels; null for media without a visual size. */
  width: number | null;
  height: number | null;
  orgId: string | null;
  /** Seconds of play (video, audio); null otherwise. */
  duration?: number | null;
  /** Hex SHA-512 of the bytes. */
  sha512?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  /** The file in the blob store (random name, tenant-prefixed by the port). */
  blobKey?: string | null;
  /** The JPEG thumbnail in the blob store (images only). */
  thumbKey?: string | null;
}

/** What a playlist source playing this file is, from the type sniffed out of its bytes. */
export function sourceTypeOf(mimeType: string | null | undefined): SourceType {
  const t = mimeType ?? '';
  if (t === 'image/svg+xml') return 'SVG';
  if (t.startsWith('image/')) return 'IMAGE';
  if (t.startsWith('video/')) return 'VIDEO';
  if (t.startsWith('audio/')) return 'AUDIO';
  if (t === 'application/pdf') return 'PDF';
  if (t.includes('powerpoint') || t.includes('presentationml')) return 'POWER_POINT';
  return 'URL';
}
