/** Device domain: stored shapes and rules. Imports no driver and no GraphQL. */
import { createHash } from 'node:crypto';

export interface PingData {
  cpuUsage: number | null;
  memoryUsage: number | null;
  diskUsage: number | null;
  playerVersion: string | null;
  ipAddress: string | null;
  /** ISO 8601 instant the service received the ping (the device's own clock is not trusted for isOnline). */
  timestamp: string;
  osVersion?: string | null;
  macAddress?: string | null;
  /** The address the service saw the ping come from. */
  externalIpAddress?: string | null;
  /** Player uptime in milliseconds. */
  uptime?: number | null;
  cpuTemperature?: number | null;
  latitude?: number | null;
  longitude?: number | null;
  currentSchedule?: string | null;
  bytesReceived?: number | null;
  transferRate?: number | null;
  downloadPctComplete?: number | null;
  /** Ping type as the player reports it (free text). */
  type?: string | null;
  /** Meta data the player reported (string values), e.g. serial_number. */
  meta?: Record<string, string | null> | null;
}

export interface Location {
  city: string | null;
  state: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface DeviceType {
  id: string | null;
  name: string | null;
  manufacturer: string | null;
}

export interface DeviceRecord {
  name: string;
  tags: string[];
  deviceType: DeviceType | null;
  pingData: PingData | null;
  location: Location | null;
  groupId: string | null;
  /** Denormalised from the group so filters and sorts need no join. */
  groupName: string | null;
  orgId: string | null;
  /** Secret the player authenticates with; unique across all accounts. */
  registrationKey: string;
  /** IANA time zone of the screen, e.g. Europe/Amsterdam. */
  timezone?: string | null;
  notes?: string | null;
  /** When the latest screenshot was stored (blobs port, key from snapKeyOf). */
  snapUpdatedAt?: string | null;
  /**
   * Command delivery hint: when commands were last queued for the device, and when a ping last
   * looked for them. A ping reads the command queue only while queued >= checked - margin (see
   * commandsMayBePending), so pings of devices without commands cost no extra read.
   */
  commandsQueuedAt?: string | null;
  commandsCheckedAt?: string | null;
  /** Entered in the device.offline due-time set at least once (use-cases/announce-offline.ts). */
  silenceWatched?: boolean;
}

/** A device as it is first registered: a name and a key, no tags, type, ping, location, group or organization unless `over` gives them. */
export const newDeviceRecord = (name: string, registrationKey: string, over: Partial<DeviceRecord> = {}): DeviceRecord => ({
  name,
  tags: [],
  deviceType: null,
  pingData: null,
  location: null,
  groupId: null,
  groupName: null,
  orgId: null,
  registrationKey,
  ...over,
});

export interface DeviceGroupRecord {
  name: string;
  parentId: string | null;
}

/**
 * Clock-skew allowance of the command delivery hint: for this long after commands were queued,
 * every ping reads the queue even when a ping on another replica (with a slightly different
 * clock) already looked.
 */
export const COMMAND_HINT_MARGIN_MS = 60_000;

/** True when a ping should read the device's command queue. */
export function commandsMayBePending(d: Pick<DeviceRecord, 'commandsQueuedAt' | 'commandsCheckedAt'>): boolean {
  if (!d.commandsQueuedAt) return false;
  if (!d.commandsCheckedAt) return true;
  return Date.parse(d.commandsQueuedAt) >= Date.parse(d.commandsCheckedAt) - COMMAND_HINT_MARGIN_MS;
}

/** Blob key of a device's latest screenshot (blob keys allow [A-Za-z0-9._-] only). */
export function snapKeyOf(deviceId: string): string {
  const safe = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,150}$/.test(deviceId) && !deviceId.includes('..');
  return safe ? `snap-${deviceId}.jpg` : `snap-${hex(deviceId)}.jpg`;
}

/** Blob tenant of an account (account ids are UUIDs or slugs; anything else is hex-encoded). */
export function blobTenantOf(accountId: string): string {
  const safe = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,150}$/.test(accountId) && !accountId.includes('..');
  return safe ? accountId : `x-${hex(accountId)}`;
}

const hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export interface DisplayCommandRecord {
  name: string;
  command: string;
  arg: string | null;
}

/** The commands every account starts with (spec: known device commands). */
export const DEFAULT_DISPLAY_COMMANDS: DisplayCommandRecord[] = [
  { name: 'Restart player', command: 'restart', arg: null },
  { name: 'Reboot device', command: 'reboot', arg: null },
  { name: 'Take screenshot', command: 'screenshot', arg: null },
  { name: 'Refresh content', command: 'refresh', arg: null },
  { name: 'Display on', command: 'display_on', arg: null },
  { name: 'Display off', command: 'display_off', arg: null },
  { name: 'Set volume', command: 'volume', arg: '50' },
  { name: 'Clear cache', command: 'clear_cache', arg: null },
  { name: 'Update player', command: 'update', arg: null },
];

/** A device is online while its last ping is younger than the online window. */
export function isOnline(ping: PingData | null, now: number, onlineWindowSeconds: number): boolean {
  if (!ping?.timestamp) return false;
  const t = Date.parse(ping.timestamp);
  return Number.isFinite(t) && now - t <= onlineWindowSeconds * 1000;
}

/** The ISO instant before which a ping means offline. */
export const onlineCutoff = (now: number, onlineWindowSeconds: number) => new Date(now - onlineWindowSeconds * 1000).toISOString();
