/** The legacy device record: the Device fields in snake_case, like the current REST Device. */
import { isoSeconds, snakeRecord } from '@pylon/kit';
import type { LegacyDeviceFragment } from '@pylon/kit/generated/legacy-operations.generated';

/** One `device` of listDevices.graphql (generated from the document; getDevice and the device mutations select the same fragment). */
export type DeviceData = Omit<LegacyDeviceFragment, 'registrationKey'> & {
  /** Null unless the caller holds Devices_Edit (a record built without it reads as null). */
  registrationKey?: LegacyDeviceFragment['registrationKey'];
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

export function toLegacyDevice(d: DeviceData): LegacyDevice {
  // Same case conversion as the REST record (kit snakeKeys); the list fixes the order.
  const record = snakeRecord(d, LEGACY_DEVICE_FIELDS) as LegacyDevice;
  return record.ping_data ? { ...record, ping_data: { ...record.ping_data, timestamp: isoSeconds(d.pingData?.timestamp) } } : record;
}
