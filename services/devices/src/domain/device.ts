/** Device domain: stored shapes and rules. Imports no driver and no GraphQL. */

export interface PingData {
  cpuUsage: number | null;
  memoryUsage: number | null;
  diskUsage: number | null;
  playerVersion: string | null;
  ipAddress: string | null;
  /** ISO 8601 instant of the ping. */
  timestamp: string;
}

export interface Location {
  city: string | null;
  state: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface DeviceType {
  id: string;
  name: string;
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
}

export interface DeviceGroupRecord {
  name: string;
  parentId: string | null;
}

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
