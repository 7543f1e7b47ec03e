/** Media metadata changes and deletion (the file itself is never replaced in place). */
import { z } from 'zod';
import { AppError, applyJsonPatch, checkValidityInput, parseInput, type Principal } from '@pylon/kit';
import type { Media } from '../../shared/content.repository.js';
import { instantField, nameField, tagsField } from '../../domain/fields.js';
import type { ContentRuntime } from '../../runtime.js';
import { contentChanged } from '../../shared/content-changes.js';
import { mediaTargets, planDue } from '../expiry/expiry-due.js';

const updateSchema = z
  .object({
    name: nameField,
    groupId: z.string().trim().max(200).nullable().optional(),
    tags: tagsField.nullable().optional(),
    startDate: instantField.nullable().optional(),
    endDate: instantField.nullable().optional(),
    validFrom: z.string().max(40).nullable().optional(),
    validUntil: z.string().max(40).nullable().optional(),
  })
  .strict();

/** updateMedia / PUT /media/{id}: metadata only. Omitted optional fields are cleared (a replace). */
export async function updateMedia(rt: ContentRuntime, principal: Principal, id: string, input: unknown): Promise<Media> {
  const tenant = principal.accountId;
  const before = await rt.repo.media.get(tenant, id);
  const u = parseInput(updateSchema, input);
  // validFrom/validUntil are the file's validity window (issue 37.3) under their own names; startDate/endDate
  // (the reference API's start_date/end_date) are the same stored instants. The name given is the one an error names.
  const names = { validFrom: u.validFrom != null ? 'validFrom' : 'startDate', validUntil: u.validUntil != null ? 'validUntil' : 'endDate' };
  const window = checkValidityInput({ validFrom: u.validFrom ?? u.startDate, validUntil: u.validUntil ?? u.endDate }, names);
  const group = await rt.repo.media.groupTree.groupFor(tenant, u.groupId);
  const changed = await rt.repo.media.change(tenant, id, {
    name: u.name,
    ...group,
    tags: u.tags ?? [],
    startDate: window.validFrom,
    endDate: window.validUntil,
  });
  await contentChanged(rt, tenant, { mediaIds: [changed.id] });
  // content.expired at its endDate, content.running_empty before it, for the file and the playlists playing it.
  if (before.endDate || changed.endDate) await planDue(rt, tenant, mediaTargets(rt, tenant, changed.id));
  return changed;
}

const MEDIA_PATCH_RULES = {
  writable: new Set(['name', 'groupId', 'tags', 'startDate', 'endDate']),
  readOnly: new Set([
    'id',
    'fileName',
    'mimeType',
    'fileSize',
    'fileUrl',
    'thumbnailUrl',
    'uploadedOn',
    'width',
    'height',
    'duration',
    'sha512',
    'groupName',
    'orgId',
  ]),
};

/** patchMedia / PATCH /media/{id}: JSON Patch over the writable metadata, validated as a whole like a PUT. */
export async function patchMedia(rt: ContentRuntime, principal: Principal, id: string, operations: unknown): Promise<Media> {
  const m = await rt.repo.media.get(principal.accountId, id);
  const writable = { name: m.name, groupId: m.groupId ?? null, tags: [...(m.tags ?? [])], startDate: m.startDate ?? null, endDate: m.endDate ?? null };
  return updateMedia(rt, principal, m.id, applyJsonPatch(writable, operations, MEDIA_PATCH_RULES));
}

/**
 * deleteMedia / DELETE /media/{id}. Refused while a playlist plays the file: silently removing
 * sources would change what screens show without anyone deciding it. The error names the
 * playlists so the caller can remove the sources first.
 */
export async function deleteMedia(rt: ContentRuntime, principal: Principal, id: string): Promise<{ mediaId: string }> {
  const tenant = principal.accountId;
  const media = await rt.repo.media.get(tenant, id);
  const users = await rt.repo.playlists.usingMedia(tenant, media.id);
  if (users.length) {
    const names = users
      .slice(0, 5)
      .map((p) => `'${p.name}'`)
      .join(', ');
    throw new AppError(
      'UNPROCESSABLE',
      `media '${media.id}' is played by ${users.length} playlist(s) (${names}${users.length > 5 ? ', ...' : ''}); remove it from them first`,
      { field: 'id' },
    );
  }
  await rt.repo.media.remove(tenant, media.id);
  // The record is gone first: a failure below leaves an orphan blob, never a record without its file.
  await Promise.all([media.blobKey ? rt.blobs.delete(tenant, media.blobKey) : false, media.thumbKey ? rt.blobs.delete(tenant, media.thumbKey) : false]).catch(
    (e) => rt.logger?.warn({ err: e, mediaId: media.id }, 'media file left behind after delete'),
  );
  return { mediaId: media.id };
}
