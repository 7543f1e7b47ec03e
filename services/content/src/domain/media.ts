import type { Grouped } from './group.js';

/** A stored media asset. Its upload time is the document's createdAt. */
export interface MediaRecord extends Grouped {
  name: string;
  fileName: string | null;
  mimeType: string | null;
  /** Bytes. */
  fileSize: number | null;
  fileUrl: string | null;
  thumbnailUrl: string | null;
  /** Pixels; null for media without a visual size. */
  width: number | null;
  height: number | null;
  orgId: string | null;
}
