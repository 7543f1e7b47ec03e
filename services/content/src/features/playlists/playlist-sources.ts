/**
 * Playlist sources: add, change, remove, reorder. Sources live inside the playlist document, so
 * every change is read-modify-write of the whole list, stored only if the playlist is still at
 * the version read (VERSION_CONFLICT otherwise): two concurrent edits never lose one another.
 * Without an expectedVersion from the caller, a conflicting write is retried on the fresh
 * playlist (the edit is re-applied, so both land); with one, the conflict is the caller's to see.
 * After every change the sequences are 1..n in play order.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, checkValidityInput, isAppError, parseInput, type Principal } from '@pylon/kit';
import type { Playlist } from '../../shared/content.repository.js';
import { sourceTypeOf } from '../../domain/media.js';
import { densify, playOrder, type PlaylistSourceRecord } from '../../domain/playlist.js';
import { idField, nameField } from '../../domain/fields.js';
import type { ContentRuntime } from '../../runtime.js';
import { contentChanged, contentEvent } from '../../shared/content-changes.js';
import { planDue, playlistTargets } from '../expiry/expiry-due.js';

/**
 * After a source write: the due entries of the source's expiry (content.expired) and of the
 * playlist running empty (content.running_empty), from the playlist as stored; returned unchanged.
 */
async function planned(rt: ContentRuntime, principal: Principal, changed: Playlist, sourceId: string | undefined): Promise<Playlist> {
  await planDue(rt, principal.accountId, playlistTargets(changed.id, sourceId ?? playOrder(changed.sources ?? []).at(-1)?.id));
  return changed;
}

const MAX_SOURCES = 1000;
const RETRIES = 8;
const intervalField = z.number().int().min(1).max(86_400).nullable().optional();
const versionField = z.number().int().min(1).nullable().optional();
/** Checked as a pair by checkValidityInput (format, then validFrom < validUntil), so zod only bounds the length. */
const validityFields = { validFrom: z.string().max(40).nullable().optional(), validUntil: z.string().max(40).nullable().optional() };
/** The window to store: only the sides that are set, so sources without one keep their stored shape. */
const windowFields = (w: { validFrom: string | null; validUntil: string | null }) => ({
  ...(w.validFrom ? { validFrom: w.validFrom } : {}),
  ...(w.validUntil ? { validUntil: w.validUntil } : {}),
});

async function edit(
  rt: ContentRuntime,
  principal: Principal,
  playlistId: string,
  expectedVersion: number | null | undefined,
  change: (sources: PlaylistSourceRecord[], playlist: Playlist) => PlaylistSourceRecord[] | Promise<PlaylistSourceRecord[]>,
): Promise<Playlist> {
  const tenant = principal.accountId;
  for (let attempt = 0; ; attempt++) {
    const playlist = await rt.repo.playlists.get(tenant, playlistId);
    if (expectedVersion != null && playlist.version !== expectedVersion) {
      throw new AppError('VERSION_CONFLICT', `playlist '${playlist.id}' is at version ${playlist.version}, not ${expectedVersion}: read it again`, {
        field: 'expectedVersion',
      });
    }
    const next = densify(await change(playOrder(playlist.sources ?? []), playlist));
    try {
      const changed = await rt.repo.playlists.replaceSources(tenant, playlist.id, next, playlist.version);
      await contentChanged(rt, tenant, { playlistIds: [changed.id] });
      contentEvent(rt, tenant, 'playlist', changed.id, 'updated');
      return changed;
    } catch (e) {
      if (!(isAppError(e) && e.code === 'VERSION_CONFLICT') || expectedVersion != null || attempt >= RETRIES) throw e;
    }
  }
}

/** What an added source may set besides what it plays (a media file or a web page). */
const addedSourceFields = {
  interval: intervalField,
  name: nameField.nullable().optional(),
  expectedVersion: versionField,
  ...validityFields,
};

const addSchema = z.object({ playlistId: idField, fileId: idField, ...addedSourceFields }).strict();

export async function addPlaylistSource(rt: ContentRuntime, principal: Principal, input: unknown): Promise<Playlist> {
  const a = parseInput(addSchema, input);
  const window = windowFields(checkValidityInput(a));
  const media = await rt.repo.media.findByIds(principal.accountId, [a.fileId]).then((m) => m.get(a.fileId));
  if (!media) throw new AppError('BAD_USER_INPUT', `media '${a.fileId.slice(0, 100)}' was not found`, { field: 'fileId' });
  const changed = await edit(rt, principal, a.playlistId, a.expectedVersion, (sources) =>
    appended(sources, { name: a.name ?? media.name, type: sourceTypeOf(media.mimeType), interval: a.interval ?? null, mediaId: media.id, ...window }),
  );
  return planned(rt, principal, changed, undefined);
}

/** The sources with one more at the end (a new id, the next sequence), within MAX_SOURCES. */
function appended(sources: PlaylistSourceRecord[], source: Omit<PlaylistSourceRecord, 'id' | 'sequence'>): PlaylistSourceRecord[] {
  if (sources.length >= MAX_SOURCES) throw new AppError('BAD_USER_INPUT', `a playlist holds at most ${MAX_SOURCES} sources`, { field: 'playlistId' });
  return [...sources, { id: randomUUID(), sequence: (sources.at(-1)?.sequence ?? 0) + 1, ...source }];
}

/** Longest web page address a source keeps. */
export const MAX_WEB_PAGE_URL = 2000;

const webPageUrl = z
  .string()
  .trim()
  .max(MAX_WEB_PAGE_URL)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === '';
    } catch {
      return false;
    }
  }, 'must be an http or https address without credentials');

const addWebPageSchema = z.object({ playlistId: idField, url: webPageUrl, ...addedSourceFields }).strict();

/**
 * Appends a web page (a WEB_PAGE source: no media file, its address kept on the source). Players
 * load it in a sandboxed frame for `interval` seconds (their default when none is set); the
 * service never fetches it, so any public or on-premise address a screen can reach is fine.
 */
export async function addPlaylistWebPage(rt: ContentRuntime, principal: Principal, input: unknown): Promise<Playlist> {
  const a = parseInput(addWebPageSchema, input);
  const window = windowFields(checkValidityInput(a));
  const changed = await edit(rt, principal, a.playlistId, a.expectedVersion, (sources) =>
    appended(sources, { name: a.name ?? new URL(a.url).host, type: 'WEB_PAGE', interval: a.interval ?? null, mediaId: null, url: a.url, ...window }),
  );
  return planned(rt, principal, changed, undefined);
}

const updateSchema = z
  .object({
    playlistId: idField,
    sourceId: idField,
    name: nameField.nullable().optional(),
    interval: intervalField,
    expectedVersion: versionField,
    ...validityFields,
  })
  .strict();

const findSource = (sources: PlaylistSourceRecord[], id: string) => {
  const at = sources.findIndex((s) => s.id === id);
  if (at < 0) throw new AppError('BAD_USER_INPUT', `source '${id.slice(0, 100)}' is not in this playlist`, { field: 'sourceId' });
  return at;
};

/**
 * Changes the fields given; an explicit null interval returns the source to the media's own
 * duration, an explicit null validFrom or validUntil lifts that limit. The window is checked as it
 * will be stored (a new validUntil against the stored validFrom too).
 */
export async function updatePlaylistSource(rt: ContentRuntime, principal: Principal, input: unknown): Promise<Playlist> {
  const u = parseInput(updateSchema, input);
  checkValidityInput(u);
  const changed = await edit(rt, principal, u.playlistId, u.expectedVersion, (sources) => {
    const at = findSource(sources, u.sourceId);
    const { validFrom: _from, validUntil: _until, ...s } = sources[at]!;
    const window = checkValidityInput({
      validFrom: u.validFrom !== undefined ? u.validFrom : (_from ?? null),
      validUntil: u.validUntil !== undefined ? u.validUntil : (_until ?? null),
    });
    sources[at] = {
      ...s,
      ...(u.name != null ? { name: u.name } : {}),
      ...(u.interval !== undefined ? { interval: u.interval } : {}),
      ...windowFields(window),
    };
    return sources;
  });
  return planned(rt, principal, changed, u.sourceId);
}

export async function removePlaylistSource(
  rt: ContentRuntime,
  principal: Principal,
  args: { playlistId: string; sourceId: string; expectedVersion?: number | null },
): Promise<Playlist> {
  const r = parseInput(z.object({ playlistId: idField, sourceId: idField, expectedVersion: versionField }).strict(), args);
  const changed = await edit(rt, principal, r.playlistId, r.expectedVersion, (sources) => {
    sources.splice(findSource(sources, r.sourceId), 1);
    return sources;
  });
  // The removed source's expiry entry goes; the playlist may now run empty sooner (its open-ended source went).
  return planned(rt, principal, changed, r.sourceId);
}

const reorderSchema = z.object({ playlistId: idField, sourceIds: z.array(idField).max(MAX_SOURCES), expectedVersion: versionField }).strict();

/** The full desired order: every source exactly once, nothing else (anything else is refused). */
export async function reorderPlaylistSources(rt: ContentRuntime, principal: Principal, input: unknown): Promise<Playlist> {
  const r = parseInput(reorderSchema, input);
  return edit(rt, principal, r.playlistId, r.expectedVersion, (sources) => {
    const byId = new Map(sources.map((s) => [s.id, s]));
    const seen = new Set<string>();
    r.sourceIds.forEach((id, i) => {
      if (!byId.has(id))
        throw new AppError('BAD_USER_INPUT', `sourceIds[${i}] '${id.slice(0, 100)}' is not a source of this playlist`, { field: `sourceIds[${i}]` });
      if (seen.has(id)) throw new AppError('BAD_USER_INPUT', `sourceIds[${i}] '${id.slice(0, 100)}' is listed twice`, { field: `sourceIds[${i}]` });
      seen.add(id);
    });
    if (seen.size !== sources.length) {
      const missing = sources.find((s) => !seen.has(s.id))!;
      throw new AppError('BAD_USER_INPUT', `sourceIds must list every source of the playlist; '${missing.id}' is missing`, { field: 'sourceIds' });
    }
    return r.sourceIds.map((id, i) => ({ ...byId.get(id)!, sequence: i + 1 }));
  });
}
