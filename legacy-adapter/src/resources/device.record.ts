/** The legacy device record: the Device fields in snake_case, like the current REST Device. */
import { isoSeconds } from '@pylon/kit';

/** One `device` of listDevices.graphql. */
export interface DeviceData {
  id: string;
  name: string;
  isOnline: boolean;
  tags: string[];
  groupId: string | null;
  groupName: string | null;
  deviceType: { id: string | null; name: string | null; manufacturer: string | null } | null;
  pingData: { cpuUsage: number | null; memoryUsage: number | null; diskUsage: number | null; playerVersion: string | null; ipAddress: string | null; timestamp: string | null } | null;
  location: { city: string | null; state: string | null; country: string | null; latitude: number | null; longitude: number | null } | null;
  /** Null unless the caller holds Devices_Edit. */
  registrationKey?: string | null;
}

export interface LegacyDevice {
  id: string;
  name: string;
  is_online: boolean;
  tags: string[];
  group_id: string | null;
  group_name: string | null;
  device_type: { id: string | null; name: string | null; manufacturer: string | null } | null;
  ping_data: { cpu_usage: number | null; memory_usage: number | null; disk_usage: number | null; player_version: string | null; ip_address: string | null; timestamp: string | null } | null;
  location: { city: string | null; state: string | null; country: string | null; latitude: number | null; longitude: number | null } | null;
  /** The player's credential (null unless the caller may edit devices). */
  registration_key: string | null;
}

export function toLegacyDevice(d: DeviceData): LegacyDevice {
  const t = d.deviceType;
  const p = d.pingData;
  const l = d.location;
  return {
    id: d.id,
    name: d.name,
    is_online: d.isOnline,
    tags: d.tags,
    group_id: d.groupId ?? null,
    group_name: d.groupName ?? null,
    device_type: t ? { id: t.id ?? null, name: t.name ?? null, manufacturer: t.manufacturer ?? null } : null,
    ping_data: p
      ? { cpu_usage: p.cpuUsage ?? null, memory_usage: p.memoryUsage ?? null, disk_usage: p.diskUsage ?? null, player_version: p.playerVersion ?? null, ip_address: p.ipAddress ?? null, timestamp: isoSeconds(p.timestamp) }
      : null,
    location: l ? { city: l.city ?? null, state: l.state ?? null, country: l.country ?? null, latitude: l.latitude ?? null, longitude: l.longitude ?? null } : null,
    registration_key: d.registrationKey ?? null,
  };
}
