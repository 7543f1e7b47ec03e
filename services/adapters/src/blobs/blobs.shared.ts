/**
 * What both BlobStores (local files, S3) accept as a tenant, key and content type: one rule, so a
 * name the embedded store takes is one the scaled store takes too.
 */
import { AppError } from '@pylon/kit/errors';

/** Tenants and keys: 1 to 200 of A-Z a-z 0-9 . _ -, not starting with '.', without '..' (so never a path). */
const NAME = /^[A-Za-z0-9._-]{1,200}$/;
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

export function checkName(value: unknown, field: 'tenant' | 'key'): string {
  if (typeof value !== 'string' || !NAME.test(value) || value.startsWith('.') || value.includes('..')) {
    throw new AppError('BAD_USER_INPUT', `invalid blob ${field}`, { field });
  }
  return value;
}

export function checkContentType(value: unknown): string {
  // A media type: printable ASCII without control characters, bounded.
  if (typeof value !== 'string' || value.length === 0 || value.length > 255 || !/^[\x21-\x7e][\x20-\x7e]*$/.test(value)) {
    throw new AppError('BAD_USER_INPUT', 'invalid content type', { field: 'contentType' });
  }
  return value;
}
