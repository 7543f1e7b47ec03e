import type { Principal } from '@pylon/kit';
import type { FleetDevice } from '../domain/override.js';

/** What scheduling needs to know of a device (the devices subgraph owns devices). */
export interface DeviceFacts {
  id: string;
  /** IANA time zone of the screen; null: the account's applies. */
  timezone: string | null;
}

/**
 * The caller's devices, as the devices subgraph knows them. In-process in the all-in-one (devices'
 * repository), over devices' GraphQL as the caller when distributed.
 */
export interface DeviceDirectory {
  /** The caller's devices among `ids`; unknown and foreign ids are absent from the map. */
  devices(caller: Principal, ids: readonly string[]): Promise<Map<string, DeviceFacts>>;
  /** Every device of the caller's account as an override target sees it, and its group tree (id -> parent id). */
  fleet(caller: Principal): Promise<{ devices: FleetDevice[]; groups: Map<string, string | null> }>;
  /** Which of `ids` (the caller's devices) are online now (pinged within the online window). */
  online(caller: Principal, ids: readonly string[]): Promise<Set<string>>;
  /** Queues display_on / display_off for the account's devices (power schedule edges); none: native players get no commands. */
  display?(accountId: string, deviceIds: readonly string[], command: 'display_on' | 'display_off'): Promise<void>;
}
