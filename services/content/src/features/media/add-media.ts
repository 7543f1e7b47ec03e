/**
 * Adding a media file: from an upload (multipart or raw body, streamed by the HTTP layer) or by
 * downloading a URL. Metadata is checked before a byte is stored; the file streams into the blob
 * port (store-file), is probed (probe-media), and only then is the record written. Any failure on
 * the way removes what was stored: no half file, no record.
 */
import { z } from 'zod';
import type { Readable } from 'node:stream';
import { AppError, parseInput, type Principal } from '@pylon/kit';
import type { Media } from '../../shared/content.repository.js';
import { instantField, nameField, tagsField } from '../../domain/fields.js';
import { openDownload } from '../../adapters/fetch-url.js';
import { probeMedia } from '../../adapters/probe-media.js';
import { storeFile } from '../../adapters/store-file.js';
import type { ContentRuntime } from '../../runtime.js';
import { mediaTargets, planDue } from '../expiry/expiry-due.js';

const metaSchema = z
  .object({
    name: nameField.optional(),
    fileName: z.string().trim().min(1).max(255).optional(),
    groupId: z.string().trim().max(200).nullable().optional(),
    tags: tagsField.optional(),
    startDate: instantField.nullable().optional(),
    endDate: instantField.nullable().optional(),
  })
  .strict();

export type NewMediaMeta = z.input<typeof metaSchema>;

// eslint-disable-next-line no-control-regex -- control characters are exactly what this removes
const CONTROL_CHARACTERS = /[\x00-\x1f\x7f]/g;

/** A client's file name as a display name only: no directories, no control characters. */
export function cleanFileName(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const base = raw.split(/[\\/]/).pop()!.replace(CONTROL_CHARACTERS, '').trim();
  return base ? base.slice(0, 255) : null;
}

/** Checks the metadata of a file about to be added (before any byte is read). */
export async function checkNewMediaMeta(rt: ContentRuntime, principal: Principal, meta: NewMediaMeta) {
  const m = parseInput(metaSchema, meta);
  if (m.startDate && m.endDate && Date.parse(m.endDate) < Date.parse(m.startDate)) {
    throw new AppError('BAD_USER_INPUT', 'endDate must not be before startDate', { field: 'endDate' });
  }
  const group = await rt.repo.media.groupTree.groupFor(principal.accountId, m.groupId);
  return { ...m, ...group };
}

/**
 * `meta` is checked before the file is read; a multipart form may send its fields after the file
 * part, so it can also be a function resolving once the whole form is read (checked then, and the
 * stored file removed if it fails).
 */
export async function addMedia(
  rt: ContentRuntime,
  principal: Principal,
  source: Readable | AsyncIterable<unknown>,
  meta: NewMediaMeta | (() => Promise<NewMediaMeta>),
): Promise<Media> {
  const tenant = principal.accountId;
  let early: Awaited<ReturnType<typeof checkNewMediaMeta>> | null = null;
  if (typeof meta !== 'function') {
    try {
      early = await checkNewMediaMeta(rt, principal, meta);
    } catch (e) {
      // Nothing was read: the stream is dropped (the HTTP layer closes the connection behind it).
      (source as Readable).destroy?.();
      throw e;
    }
  }
  const file = await storeFile(rt, tenant, source as Readable);
  let thumbKey: string | null = null;
  try {
    const m = early ?? (await checkNewMediaMeta(rt, principal, await (meta as () => Promise<NewMediaMeta>)()));
    const probed = await probeMedia(rt, tenant, file.key, file.mimeType);
    thumbKey = probed.thumbKey;
    const fileName = cleanFileName(m.fileName) ?? `${file.key}.${file.ext}`;
    const media = await rt.repo.media.add(tenant, {
      name: m.name ?? (fileName.replace(/\.[^.]{1,10}$/, '').slice(0, 200) || fileName.slice(0, 200)),
      fileName,
      mimeType: file.mimeType,
      fileSize: file.size,
      fileUrl: null,
      thumbnailUrl: null,
      width: probed.width,
      height: probed.height,
      duration: probed.duration,
      sha512: file.sha512,
      startDate: m.startDate ?? null,
      endDate: m.endDate ?? null,
      blobKey: file.key,
      thumbKey,
      tags: m.tags ?? [],
      groupId: m.groupId,
      groupName: m.groupName,
      orgId: null,
    });
    rt.pushEvents?.emit(tenant, 'media.ready', { media_id: media.id, name: media.name });
    if (media.endDate) await planDue(rt, tenant, mediaTargets(rt, tenant, media.id));
    return media;
  } catch (e) {
    await Promise.all([rt.blobs.delete(tenant, file.key), thumbKey ? rt.blobs.delete(tenant, thumbKey) : false]).catch(() => undefined);
    throw e;
  }
}

const importSchema = z
  .object({
    url: z.string(),
    name: nameField.nullable().optional(),
    groupId: z.string().trim().max(200).nullable().optional(),
    tags: tagsField.nullable().optional(),
  })
  .strict();

/** createMediaFromUrl / POST /media/import: the service downloads the file (SSRF-safe, capped). */
export async function importMedia(rt: ContentRuntime, principal: Principal, input: unknown): Promise<Media> {
  const i = parseInput(importSchema, input);
  // Group and names are checked before the download starts.
  await checkNewMediaMeta(rt, principal, { ...(i.name ? { name: i.name } : {}), groupId: i.groupId ?? null, ...(i.tags ? { tags: i.tags } : {}) });
  let download: Awaited<ReturnType<typeof openDownload>> | undefined;
  try {
    download = await openDownload(rt, i.url);
    return await addMedia(rt, principal, download.body, {
      ...(i.name ? { name: i.name } : {}),
      ...(download.fileName ? { fileName: download.fileName } : {}),
      groupId: i.groupId ?? null,
      ...(i.tags ? { tags: i.tags } : {}),
    });
  } catch (e) {
    // The request was valid; the import failed (download, type, size): integrations hear of it.
    rt.pushEvents?.emit(principal.accountId, 'media.failed', {
      media_id: null,
      name: i.name ?? download?.fileName ?? '',
      error: (e instanceof Error ? e.message : String(e)).slice(0, 500),
    });
    throw e;
  } finally {
    download?.abort();
  }
}
