/** Playlists: create, replace properties, delete. Sources are edited in playlist-sources.ts. */
import { z } from 'zod';
import { AppError, applyJsonPatch, parseInput, type Principal } from '@pylon/kit';
import type { Playlist } from '../../shared/content.repository.js';
import { nameField, tagsField } from '../../domain/fields.js';
import { PLAYLIST_TYPES } from '../../domain/playlist.js';
import type { ContentRuntime } from '../../runtime.js';
import { contentChanged, contentEvent } from '../../shared/content-changes.js';

const durationField = z
  .number()
  .int()
  .min(0)
  .max(31 * 86_400)
  .nullable()
  .optional();

const createSchema = z
  .object({
    name: nameField,
    type: z.enum(PLAYLIST_TYPES).nullable().optional(),
    duration: durationField,
    groupId: z.string().trim().max(200).nullable().optional(),
    tags: tagsField.nullable().optional(),
  })
  .strict();

const updateSchema = createSchema.extend({ type: z.enum(PLAYLIST_TYPES), expectedVersion: z.number().int().min(1).nullable().optional() }).strict();

export async function createPlaylist(rt: ContentRuntime, principal: Principal, input: unknown): Promise<Playlist> {
  const p = parseInput(createSchema, input);
  const group = await rt.repo.playlists.groupTree.groupFor(principal.accountId, p.groupId);
  const created = await rt.repo.playlists.add(principal.accountId, {
    name: p.name,
    type: p.type ?? 'MULTIMEDIA',
    duration: p.duration ?? null,
    ...group,
    tags: p.tags ?? [],
    sources: [],
  });
  contentEvent(rt, principal.accountId, 'playlist', created.id, 'created');
  return created;
}

export async function updatePlaylist(rt: ContentRuntime, principal: Principal, id: string, input: unknown): Promise<Playlist> {
  const tenant = principal.accountId;
  const current = await rt.repo.playlists.get(tenant, id);
  const p = parseInput(updateSchema, input);
  const group = await rt.repo.playlists.groupTree.groupFor(tenant, p.groupId);
  const changed = await rt.repo.playlists.change(
    tenant,
    current.id,
    { name: p.name, type: p.type, duration: p.duration ?? null, ...group, tags: p.tags ?? [] },
    p.expectedVersion ?? undefined,
  );
  await contentChanged(rt, tenant, { playlistIds: [changed.id] });
  contentEvent(rt, tenant, 'playlist', changed.id, 'updated');
  return changed;
}

const PLAYLIST_PATCH_RULES = {
  writable: new Set(['name', 'type', 'duration', 'groupId', 'tags']),
  readOnly: new Set(['id', 'sources', 'calculatedDuration', 'groupName', 'createdOn', 'updatedOn', 'version']),
};

/**
 * patchPlaylist / PATCH /playlists/{id}: JSON Patch over the playlist's properties, validated as a
 * whole and written at the version read (VERSION_CONFLICT when someone changed it meanwhile).
 */
export async function patchPlaylist(rt: ContentRuntime, principal: Principal, id: string, operations: unknown): Promise<Playlist> {
  const p = await rt.repo.playlists.get(principal.accountId, id);
  const writable = { name: p.name, type: p.type, duration: p.duration ?? null, groupId: p.groupId ?? null, tags: [...(p.tags ?? [])] };
  return updatePlaylist(rt, principal, p.id, { ...applyJsonPatch(writable, operations, PLAYLIST_PATCH_RULES), expectedVersion: p.version });
}

/** Refused while a template module plays it (the module would go blank without anyone deciding it). */
export async function deletePlaylist(rt: ContentRuntime, principal: Principal, id: string): Promise<{ playlistId: string }> {
  const tenant = principal.accountId;
  const playlist = await rt.repo.playlists.get(tenant, id);
  const users = await rt.repo.templates.usingPlaylist(tenant, playlist.id);
  if (users.length) {
    throw new AppError(
      'UNPROCESSABLE',
      `playlist '${playlist.id}' is played by template(s) ${users
        .slice(0, 5)
        .map((t) => `'${t.name}'`)
        .join(', ')}; change their modules first`,
      { field: 'id' },
    );
  }
  await rt.repo.playlists.remove(tenant, playlist.id);
  await contentChanged(rt, tenant, { playlistIds: [playlist.id] });
  contentEvent(rt, tenant, 'playlist', playlist.id, 'deleted');
  return { playlistId: playlist.id };
}
