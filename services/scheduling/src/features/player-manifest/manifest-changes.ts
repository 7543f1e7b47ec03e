/**
 * Event-driven manifest invalidation: schedule writes name their devices; content announces changed
 * playlists/templates (media edits already expanded), devices announce changed devices; scheduling
 * maps content to the devices of the schedules playing it, drops those devices' cached manifest
 * versions and announces them (CHANNELS.manifestsChanged), so a ping waiting on the devices side
 * answers at once with the new version. No device is polled.
 */
import { announce, CHANNELS, isContentChangedEvent, isDevicesChangedEvent, type DevicesChangedEvent, type PubSub } from '@pylon/kit';
import { GENERATION_TTL_SECONDS, manifestCacheKey, manifestGenerationKey } from '../../domain/manifest-cache.js';
import type { SchedulingRuntime } from '../../runtime.js';

const ANNOUNCE_CHUNK = 500;

/**
 * Bumps these devices' generation (a version computed from data read before it no longer counts, see
 * manifest-cache), drops their cached versions (their next ping recomputes) and announces the change.
 */
export async function forgetManifests(rt: SchedulingRuntime, accountId: string, ids: Iterable<string>): Promise<void> {
  const deviceIds = [...new Set(ids)];
  if (!deviceIds.length) return;
  const cache = rt.cache;
  if (cache) {
    await Promise.all(
      deviceIds.map(async (id) => {
        await cache.incr(manifestGenerationKey(accountId, id), GENERATION_TTL_SECONDS).catch(() => undefined);
        await cache.del(manifestCacheKey(accountId, id)).catch(() => undefined);
      }),
    );
  }
  // In chunks, so a schedule on a whole fleet does not become one huge pub/sub message.
  for (let i = 0; i < deviceIds.length; i += ANNOUNCE_CHUNK) {
    const chunk = deviceIds.slice(i, i + ANNOUNCE_CHUNK);
    await announce(rt.pubsub, CHANNELS.manifestsChanged, { accountId, deviceIds: chunk }, (e) => rt.logger?.warn({ err: e }, 'manifest change not announced'));
  }
}

/** The devices whose manifests a content change may alter (through the schedules playing it). */
export async function devicesPlaying(
  rt: SchedulingRuntime,
  accountId: string,
  refs: { playlistIds: readonly string[]; templateIds: readonly string[] },
): Promise<Set<string>> {
  const schedules = await rt.repo.playing(accountId, refs);
  return new Set(schedules.flatMap((s) => s.deviceIds ?? []));
}

export async function contentChanged(
  rt: SchedulingRuntime,
  accountId: string,
  refs: { playlistIds: readonly string[]; templateIds: readonly string[] },
): Promise<void> {
  await forgetManifests(rt, accountId, await devicesPlaying(rt, accountId, refs));
}

/** Devices that changed what they play (time zone) lose their cached versions; deleted ones also leave their schedules. */
export async function devicesChanged(rt: SchedulingRuntime, e: DevicesChangedEvent): Promise<void> {
  if (e.deleted) await rt.repo.dropDevices(e.accountId, e.deviceIds);
  await forgetManifests(rt, e.accountId, e.deviceIds);
}

/** Subscribes to the change channels; resolves to the unsubscribe function. */
export async function watchChanges(rt: SchedulingRuntime, pubsub: PubSub): Promise<() => Promise<void>> {
  const warn = (e: unknown) => rt.logger?.warn({ err: e }, 'manifest invalidation failed; versions refresh when their cache entries expire');
  const offContent = await pubsub.subscribe(CHANNELS.contentChanged, (m) => {
    if (isContentChangedEvent(m)) contentChanged(rt, m.accountId, m).catch(warn);
  });
  const offDevices = await pubsub.subscribe(CHANNELS.devicesChanged, (m) => {
    if (isDevicesChangedEvent(m)) devicesChanged(rt, m).catch(warn);
  });
  // Unsubscribing from a pub/sub that is down (Redis gone at shutdown) must not fail the shutdown.
  return async () => {
    for (const r of await Promise.allSettled([offContent(), offDevices()])) if (r.status === 'rejected') warn(r.reason);
  };
}
