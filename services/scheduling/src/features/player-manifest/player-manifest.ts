/**
 * The player manifest: what a screen plays now and next, with every file it needs (signed address,
 * size, SHA-512), until when that holds (the engine's next change), and a version.
 *
 * Version: a hash of the resolved manifest (schedules won, content ids, names, order, files'
 * checksums and sizes, validUntil), signed addresses left out, so it changes exactly when what the
 * screen should play changes (an edit that changes nothing visible keeps it), and every replica
 * computes the same one without coordination. It is cached per device in the cache port (shared
 * Redis when scaled) until validUntil (at most MAX_CACHE_SECONDS); change events (schedules,
 * content, devices) bump the affected devices' generation and delete their entries, so the next ping
 * recomputes it. An entry counts only with the generation read before its data, so a ping that read
 * just before an edit cannot cache a stale version after it; the cap bounds what a lost event leaves.
 *
 * The engine's answer (winner now, next change, winner then) comes from `outlook`, an exact memo of
 * the pure engine keyed by every plan field it reads, reused until that next change.
 */
import { createHash } from 'node:crypto';
import { devicePrincipal, mapTemplateLayout, type Principal, type TemplateLayout, type TemplateModule } from '@pylon/kit';
import { manifestCacheKey, manifestGenerationKey } from '../../domain/manifest-cache.js';
import { outlook } from '../../domain/resolution.js';
import type { SchedulePlan } from '../../domain/plan.js';
import type { ManifestMedia, ManifestPlaylist, ManifestTemplate } from '../../ports/content-directory.js';
import type { Schedule } from '../../shared/schedule.repository.js';
import type { SchedulingRuntime } from '../../runtime.js';
import { deviceSchedules } from '../now-playing/now-playing.js';
import { overrideForDevice } from '../overrides/manage-overrides.js';
import type { Override } from '../overrides/override.repository.js';
import { manifestPower, type ManifestPower } from '../power/manage-power.js';
import { nextContentEdge, validContentAt } from '../../domain/content-validity.js';

export const MAX_CACHE_SECONDS = 300;

export interface DeviceRef {
  accountId: string;
  id: string;
}

interface MediaOut {
  id: string;
  name: string;
  mime_type: string | null;
  url: string | null;
  size: number | null;
  sha512: string | null;
  duration: number | null;
}
interface PlaylistOut {
  type: 'playlist';
  id: string;
  name: string;
  /**
   * `page_url`: a web page source's address (only on such sources, so file-only manifests keep their shape).
   * `valid_from`/`valid_until`: the source's validity window (only when set): a player never shows it outside.
   */
  sources: {
    id: string;
    name: string | null;
    type: string;
    interval: number | null;
    media: MediaOut | null;
    page_url?: string;
    valid_from?: string;
    valid_until?: string;
  }[];
}
interface TemplateOut extends Omit<TemplateLayout<PlaylistOut>, 'modules'> {
  type: 'template';
  /** Each module's data table as `data_table_id` (rows at GET /player/{registrationKey}/datatables/{id}/rows). */
  modules: (Omit<TemplateModule<PlaylistOut>, 'dataTableId'> & { data_table_id: string | null })[];
}

export interface ManifestEntry {
  /** When it starts (null for what plays now). */
  starts_at: string | null;
  /** The winning schedule; null: nothing scheduled from then on. */
  schedule_id: string | null;
  schedule_name: string | null;
  content: PlaylistOut | TemplateOut | null;
}

/**
 * An emergency override the screen holds: shown over `now` and `next` (whatever they say) while the
 * server's time is within [starts_at, ends_at); ends_at null: until the manifest no longer names it.
 * A player never shows it past ends_at, even from a cached manifest.
 */
export interface ManifestOverride {
  id: string;
  name: string;
  starts_at: string;
  ends_at: string | null;
  /** A media item arrives as a one-source playlist; a message carries its text and colours. */
  content: PlaylistOut | { type: 'message'; text: string; text_color: string; background_color: string } | null;
}

export interface PlayerManifest {
  device_id: string;
  version: string;
  /** The next change (ISO 8601): the engine's, or a source of `now` expiring or becoming valid; refetch by then; null: nothing changes within the horizon. */
  valid_until: string | null;
  now: ManifestEntry;
  next: ManifestEntry | null;
  /** Present only while an override names the screen (showing, or starting later). */
  override?: ManifestOverride;
  /** Present only when a power schedule governs the screen (power/manage-power.ts). */
  power?: ManifestPower;
}

export interface ManifestAnswer {
  manifest: PlayerManifest;
  /** Strong ETag over the whole body (so a renewed signed address also changes it). */
  etag: string;
}

/**
 * Who the manifest is read as: the device's account, no user, and only the read policies the
 * directory ports need (in-process they scope by account only; over HTTP the other subgraphs check them).
 */
export const playerPrincipal = (d: DeviceRef): Principal => ({
  ...devicePrincipal(d.accountId, d.id),
  policies: ['Devices_View', 'Files_View', 'Playlists_View', 'Templates_View'],
});

const cacheKey = (d: DeviceRef) => manifestCacheKey(d.accountId, d.id);

interface CachedVersion {
  version: string;
  validUntil: number | null;
  /** The device's invalidation generation read before the data this version was computed from. */
  generation: number;
  /** The whole answer and when it was computed: the manifest fetch that follows a ping reuses it (ANSWER_REUSE_MS). */
  answer?: ManifestAnswer;
  computedAt?: number;
}

/**
 * How long a computed manifest answers fetches. After an edit every woken screen's ping computes its
 * manifest and the screen fetches it at once: reusing that answer halves the burst (issue 39, the
 * capacity scenario). Short, because the answer holds signed file addresses: their expiry is rounded
 * up to a TTL/2 boundary, at least 30 s away with the shortest MEDIA_URL_TTL_SECONDS (60).
 */
export const ANSWER_REUSE_MS = 15_000;

/** The device's invalidation generation (0 before the first bump; undefined without a cache or when it cannot be read). */
async function generation(rt: SchedulingRuntime, d: DeviceRef): Promise<number | undefined> {
  if (!rt.cache) return undefined;
  return rt.cache.get<number>(manifestGenerationKey(d.accountId, d.id)).then(
    (g) => (typeof g === 'number' ? g : 0),
    () => undefined,
  );
}
const iso = (t: number) => `${new Date(t).toISOString().slice(0, 19)}Z`;

const mediaOut = (m: ManifestMedia | null): MediaOut | null =>
  m ? { id: m.id, name: m.name, mime_type: m.mimeType, url: m.url, size: m.size, sha512: m.sha512, duration: m.duration } : null;
type SourceOut = PlaylistOut['sources'][number];
/** A source as the player reads it; a web page's address only on web page sources. */
const sourceOut = ({ url, media, validFrom, validUntil, ...s }: ManifestPlaylist['sources'][number]): SourceOut => ({
  ...s,
  media: mediaOut(media),
  ...(url ? { page_url: url } : {}),
  ...(validFrom ? { valid_from: validFrom } : {}),
  ...(validUntil ? { valid_until: validUntil } : {}),
});
const playlistOut = (p: ManifestPlaylist): PlaylistOut => ({
  type: 'playlist',
  id: p.id,
  name: p.name,
  sources: p.sources.map(sourceOut),
});
const templateOut = (t: ManifestTemplate): TemplateOut => {
  const layout = mapTemplateLayout(t, playlistOut);
  return { type: 'template', ...layout, modules: layout.modules.map(({ dataTableId, ...m }) => ({ ...m, data_table_id: dataTableId ?? null })) };
};

/** The manifest body without its version, URLs blanked: what the version hashes. */
const versionOf = (m: Omit<PlayerManifest, 'version'>): string =>
  createHash('sha256')
    .update(JSON.stringify(m, (k, v: unknown) => (k === 'url' ? null : v)))
    .digest('base64url')
    .slice(0, 22);

/** The override as the player reads it; its media or playlist fetched as the device's account. */
async function overrideOut(rt: SchedulingRuntime, caller: Principal, o: Override): Promise<ManifestOverride> {
  const c = o.content;
  const when = { id: o.id, name: o.name, starts_at: iso(Date.parse(o.startsAt)), ends_at: o.endsAt ? iso(Date.parse(o.endsAt)) : null };
  if (c.type === 'MESSAGE') return { ...when, content: { type: 'message', text: c.text, text_color: c.textColor, background_color: c.backgroundColor } };
  if (c.type === 'PLAYLIST') {
    const p = (await rt.content.playerContent(caller, { playlistIds: [c.playlistId], templateIds: [] })).playlists.get(c.playlistId);
    return { ...when, content: p ? playlistOut(p) : null };
  }
  const m = (await rt.content.playerMedia(caller, [c.mediaId])).get(c.mediaId);
  const type = m?.mimeType?.startsWith('video/') ? 'VIDEO' : 'IMAGE';
  const source = m ? { id: m.id, name: m.name, type, interval: null, media: mediaOut(m) } : null;
  return { ...when, content: source ? { type: 'playlist', id: `override:${o.id}`, name: o.name, sources: [source] } : null };
}

/** Builds the device's manifest at the runtime's clock; null when the device is gone. */
export async function playerManifest(rt: SchedulingRuntime, device: DeviceRef): Promise<ManifestAnswer | null> {
  const caller = playerPrincipal(device);
  // Read before any data: an invalidation after this point makes the version computed below not count.
  const gen = await generation(rt, device);
  const at = rt.now();
  const found = await deviceSchedules(rt, caller, device.id).catch((e: unknown) => {
    if ((e as { code?: string }).code === 'NOT_FOUND') return null;
    throw e;
  });
  if (!found) return null;
  const { zone, plans } = found;
  const current = outlook(plans, zone, at);
  const winners = [current.winner, current.next].filter((w): w is SchedulePlan<Schedule> => w !== null).map((w) => w.schedule);
  const content = await rt.content.playerContent(caller, {
    playlistIds: [...new Set(winners.flatMap((s) => (s.type === 'PLAYLIST' && s.playlistId ? [s.playlistId] : [])))],
    templateIds: [...new Set(winners.flatMap((s) => (s.type === 'TEMPLATE' && s.templateId ? [s.templateId] : [])))],
  });
  const contentOf = (s: Schedule | undefined) =>
    (s?.type === 'PLAYLIST' && s.playlistId ? content.playlists.get(s.playlistId) : undefined) ??
    (s?.type === 'TEMPLATE' && s.templateId ? content.templates.get(s.templateId) : undefined);
  // A source of what plays now expiring or becoming valid before the engine's next change is a change
  // too: `next` is then the same schedule with its content cut at that edge (issue 37.3).
  const edge = nextContentEdge(contentOf(current.winner?.schedule), at);
  const byValidity = edge !== null && (current.nextChange === null || edge < current.nextChange);
  const next = byValidity ? { at: edge, winner: current.winner } : current.nextChange === null ? null : { at: current.nextChange, winner: current.next };
  const entry = (w: SchedulePlan<Schedule> | null, startsAt: number | null): ManifestEntry => {
    const s = w?.schedule;
    const c = contentOf(s);
    const cut = c ? validContentAt(c, startsAt ?? at) : undefined;
    return {
      starts_at: startsAt === null ? null : iso(startsAt),
      schedule_id: s?.id ?? null,
      schedule_name: s?.name ?? null,
      content: cut?.kind === 'playlist' ? playlistOut(cut) : cut?.kind === 'template' ? templateOut(cut) : null,
    };
  };
  const held = await overrideForDevice(rt, device);
  const override = held ? await overrideOut(rt, caller, held) : null;
  const power = await manifestPower(rt, caller, device.id);
  const body = {
    device_id: device.id,
    valid_until: next === null ? null : iso(next.at),
    now: entry(current.winner, null),
    next: next ? entry(next.winner, next.at) : null,
    ...(override ? { override } : {}),
    ...(power ? { power } : {}),
  };
  const version = versionOf(body);
  const manifest: PlayerManifest = {
    device_id: body.device_id,
    version,
    valid_until: body.valid_until,
    now: body.now,
    next: body.next,
    ...(override ? { override } : {}),
    ...(power ? { power } : {}),
  };
  // The cached version also lapses when the override starts or ends (the timers wake the screens then too).
  // And when the power windows' span moves on (the start of the next UTC day).
  const edges = [
    next?.at ?? null,
    ...(held ? [Date.parse(held.startsAt), held.endsAt ? Date.parse(held.endsAt) : null] : []),
    ...(power ? [Date.parse(power.from) + 86_400_000] : []),
  ];
  const lapse = edges.filter((t): t is number => t !== null && t > at).reduce<number | null>((a, t) => (a === null || t < a ? t : a), null);
  const answer: ManifestAnswer = { manifest, etag: `"${createHash('sha256').update(JSON.stringify(manifest)).digest('base64url').slice(0, 27)}"` };
  await remember(rt, device, answer, lapse, gen);
  return answer;
}

/** The device's cached entry while it counts (its generation current, not past validUntil); undefined otherwise. */
async function cachedEntry(rt: SchedulingRuntime, device: DeviceRef): Promise<CachedVersion | undefined> {
  if (!rt.cache) return undefined;
  const [cached, gen] = await Promise.all([rt.cache.get<CachedVersion>(cacheKey(device)).catch(() => undefined), generation(rt, device)]);
  return cached && cached.generation === gen && (cached.validUntil === null || rt.now() < cached.validUntil) ? cached : undefined;
}

/** The manifest a screen fetches: the answer computed in the last ANSWER_REUSE_MS while it counts, else computed now. */
export async function currentManifest(rt: SchedulingRuntime, device: DeviceRef): Promise<ManifestAnswer | null> {
  const cached = await cachedEntry(rt, device);
  if (cached?.answer && cached.computedAt !== undefined && rt.now() - cached.computedAt < ANSWER_REUSE_MS) return cached.answer;
  return playerManifest(rt, device);
}

/**
 * now_playing.changed: the last version announced per device is kept (a week) apart from the
 * version cache (which invalidations drop), so a recomputed manifest that differs is announced
 * once. Manifests are computed when the device asks (ping, manifest fetch): that is when it fires.
 */
async function announceVersion(rt: SchedulingRuntime, device: DeviceRef, version: string): Promise<void> {
  if (!rt.cache || !rt.pushEvents) return;
  const key = `manifest-announced:${device.accountId}:${device.id}`;
  const last = await rt.cache.get<string>(key).catch(() => undefined);
  if (last === version) return;
  await rt.cache.set(key, version, 7 * 86_400).catch(() => undefined);
  if (last !== undefined && last !== null) rt.pushEvents.emit(device.accountId, 'now_playing.changed', { device_id: device.id, manifest_version: version });
}

async function remember(rt: SchedulingRuntime, device: DeviceRef, answer: ManifestAnswer, validUntil: number | null, gen: number | undefined): Promise<void> {
  const version = answer.manifest.version;
  await announceVersion(rt, device, version);
  if (!rt.cache || gen === undefined) return;
  const seconds = validUntil === null ? MAX_CACHE_SECONDS : Math.min(MAX_CACHE_SECONDS, Math.max(1, Math.ceil((validUntil - rt.now()) / 1000)));
  const entry: CachedVersion = { version, validUntil, generation: gen, answer, computedAt: rt.now() };
  await rt.cache.set(cacheKey(device), entry, seconds).catch(() => undefined);
}

/** The device's current manifest version (what a ping carries): cached, else computed. Null: device gone. */
export async function manifestVersion(rt: SchedulingRuntime, device: DeviceRef): Promise<string | null> {
  const cached = await cachedEntry(rt, device);
  if (cached) return cached.version;
  return (await playerManifest(rt, device))?.manifest.version ?? null;
}
