/**
 * Change events between subgraphs over the pub/sub port (in-process, or Redis with
 * CACHE_DRIVER=redis): the contract, shared through the kit so no service imports another's code.
 * Best effort by design: a lost event only delays a manifest version until its cached entry expires.
 */
import type { PubSub } from './ports/cache.js';

export const CHANNELS = {
  /** Content published: these playlists and templates changed (media edits already expanded to the playlists/templates playing them). */
  contentChanged: 'pylon.content.changed',
  /** Devices published: these devices changed in a way that alters what they play (time zone), or were deleted. */
  devicesChanged: 'pylon.devices.changed',
  /** Scheduling published: these devices' manifests (may) have changed; pings waiting for them answer now. */
  manifestsChanged: 'pylon.scheduling.manifests-changed',
  /** Data tables published: these tables' rows changed; screens showing them (menu boards) re-read them now. */
  dataTablesChanged: 'pylon.datatables.changed',
} as const;

export interface ContentChangedEvent {
  accountId: string;
  playlistIds: string[];
  templateIds: string[];
}

export interface DevicesChangedEvent {
  accountId: string;
  deviceIds: string[];
  /** The devices are gone: schedules drop them (and their manifests). */
  deleted?: boolean;
}

/** Scheduling's announcement: the versions of these devices' manifests were dropped (recomputed on the next ping). */
export interface ManifestsChangedEvent {
  accountId: string;
  deviceIds: string[];
}

/** Datatables' announcement: rows of these tables changed (a write bumped their generation). */
export interface DataTablesChangedEvent {
  accountId: string;
  tableIds: string[];
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export function isContentChangedEvent(m: unknown): m is ContentChangedEvent {
  const e = m as ContentChangedEvent | null;
  return !!e && typeof e.accountId === 'string' && strings(e.playlistIds) && strings(e.templateIds);
}

export function isManifestsChangedEvent(m: unknown): m is ManifestsChangedEvent {
  const e = m as ManifestsChangedEvent | null;
  return !!e && typeof e.accountId === 'string' && strings(e.deviceIds);
}

export function isDataTablesChangedEvent(m: unknown): m is DataTablesChangedEvent {
  const e = m as DataTablesChangedEvent | null;
  return !!e && typeof e.accountId === 'string' && strings(e.tableIds);
}

export function isDevicesChangedEvent(m: unknown): m is DevicesChangedEvent {
  return isManifestsChangedEvent(m) && ((m as DevicesChangedEvent).deleted === undefined || typeof (m as DevicesChangedEvent).deleted === 'boolean');
}

/** Publishes, logging instead of failing the write that caused it. */
export async function announce(pubsub: PubSub | undefined, channel: string, event: unknown, onError: (e: unknown) => void): Promise<void> {
  if (!pubsub) return;
  await pubsub.publish(channel, event).catch(onError);
}
