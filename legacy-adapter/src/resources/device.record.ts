/** The legacy device record: the Device fields in snake_case, like the current REST Device. */
import { isoSeconds, snakeRecord } from '@pylon/kit';
import type { RestDeviceFragment, RestPingDataFragment } from '@pylon/kit/generated/rest-operations.generated';

type PingData = Pick<RestPingDataFragment, 'cpuUsage' | 'memoryUsage' | 'diskUsage' | 'playerVersion' | 'ipAddress' | 'timestamp'>;

/**
 * The fields of one `device` the legacy record shows: the REST selection (`...RestDevice` in
 * listDevices.graphql; getDevice and the device mutations run the REST documents) holds them.
 */
export type DeviceData = Pick<RestDeviceFragment, 'id' | 'name' | 'isOnline' | 'tags' | 'groupId' | 'groupName' | 'deviceType' | 'location'> & {
  pingData: PingData | null;
  /** Null unless the caller holds Devices_Edit (a record built without it reads as null). */
  registrationKey?: RestDeviceFragment['registrationKey'];
};

export interface LegacyDevice {
  id: string;
  name: string;
  is_online: boolean;
  tags: string[];
  group_id: string | null;
  group_name: string | null;
  device_type: { id: string | null; name: string | null; manufacturer: string | null } | null;
  ping_data: {
    cpu_usage: number | null;
    memory_usage: number | null;
    disk_usage: number | null;
    player_version: string | null;
    ip_address: string | null;
    timestamp: string | null;
  } | null;
  location: { city: string | null; state: string | null; country: string | null; latitude: number | null; longitude: number | null } | null;
  /** The player's credential (null unless the caller may edit devices). */
  registration_key: string | null;
}

const LEGACY_DEVICE_FIELDS = [
  'id',
  'name',
  'is_online',
  'tags',
  'group_id',
  'group_name',
  'device_type',
  'ping_data',
  'location',
  'registration_key',
] as const satisfies readonly (keyof LegacyDevice)[];

/** The ping fields the legacy record shows, in wire order (the REST selection holds more). */
const LEGACY_PING_FIELDS = [
  'cpu_usage',
  'memory_usage',
  'disk_usage',
  'player_version',
  'ip_address',
  'timestamp',
] as const satisfies readonly (keyof NonNullable<LegacyDevice['ping_data']>)[];

export function toLegacyDevice(d: DeviceData): LegacyDevice {
  // Same case conversion as the REST record (kit snakeKeys); the lists fix the fields and their order.
  const record = snakeRecord(d, LEGACY_DEVICE_FIELDS) as LegacyDevice;
  return d.pingData
    ? {
        ...record,
        ping_data: { ...(snakeRecord(d.pingData, LEGACY_PING_FIELDS) as NonNullable<LegacyDevice['ping_data']>), timestamp: isoSeconds(d.pingData.timestamp) },
      }
    : record;
}
