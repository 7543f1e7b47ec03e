/** Device screenshots (JPEG) through the blobs port: stored by the player, read as base64 or bytes. */
import { AppError } from '@pylon/kit';
import { blobTenantOf, snapKeyOf } from '../../domain/device.js';
import { isWholeJpeg } from '../../domain/jpeg.js';
import type { Device } from '../../shared/device.repository.js';
import type { DevicesRuntime } from '../../runtime.js';

/** What checking, storing and reading screenshots needs. */
export type SnapDeps = Pick<DevicesRuntime, 'repo' | 'blobs' | 'settings' | 'now'>;

/** Checks a screenshot before anything is written: size cap, then the whole JPEG structure (neither the declared type nor the first bytes are trusted). */
export function checkSnap(rt: Pick<SnapDeps, 'settings'>, bytes: Buffer): void {
  if (bytes.length === 0) throw new AppError('BAD_USER_INPUT', 'the screenshot is empty', { field: 'snap' });
  if (bytes.length > rt.settings.maxSnapBytes)
    throw new AppError('PAYLOAD_TOO_LARGE', `screenshots are limited to ${rt.settings.maxSnapBytes} bytes`, { field: 'snap' });
  if (!isWholeJpeg(bytes)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the screenshot must be a JPEG image', { field: 'snap' });
}

/** Decodes an inline base64 screenshot (ping body `snap`). */
export function decodeSnap(rt: Pick<SnapDeps, 'settings'>, base64: string): Buffer {
  const clean = base64.replace(/^data:image\/jpeg;base64,/, '');
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(clean)) throw new AppError('BAD_USER_INPUT', 'snap must be base64', { field: 'snap' });
  const bytes = Buffer.from(clean, 'base64');
  checkSnap(rt, bytes);
  return bytes;
}

export async function storeSnap(rt: SnapDeps, device: Device, bytes: Buffer): Promise<void> {
  checkSnap(rt, bytes);
  if (!rt.blobs) throw new AppError('UNAVAILABLE', 'screenshot storage is not configured');
  await rt.blobs.put(blobTenantOf(device.accountId), snapKeyOf(device.id), bytes, 'image/jpeg');
  await rt.repo.markSnapUpdated(device.accountId, device.id, new Date(rt.now()).toISOString());
}

/** The latest screenshot's bytes, or null when the device has none (or no storage is configured). */
export async function readSnap(rt: Pick<SnapDeps, 'blobs'>, device: Pick<Device, 'id' | 'accountId' | 'snapUpdatedAt'>): Promise<Buffer | null> {
  if (!rt.blobs || !device.snapUpdatedAt) return null;
  const blob = await rt.blobs.get(blobTenantOf(device.accountId), snapKeyOf(device.id));
  if (!blob) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of blob.body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export async function deleteSnap(rt: Pick<SnapDeps, 'blobs'>, device: Pick<Device, 'id' | 'accountId' | 'snapUpdatedAt'>): Promise<void> {
  if (rt.blobs && device.snapUpdatedAt) await rt.blobs.delete(blobTenantOf(device.accountId), snapKeyOf(device.id));
}
