/** Custom events associated with a device (REST POST /devices/{id}/track, player POST /player/{key}/track) -> the events stream. */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@pylon/kit';
import { assertPlainJson, parseInput } from '../../domain/validation.js';
import type { Device } from '../../shared/device.repository.js';
import type { DevicesRuntime } from '../../runtime.js';

const eventSchema = z
  .object({
    sessionId: z.string().trim().max(200).nullable().optional(),
    eventName: z.string().trim().min(1).max(200),
    properties: z.record(z.string().max(200), z.unknown()).nullable().optional(),
  })
  .strict();

export interface TrackedEvent {
  eventId: string;
  deviceId: string;
  timestamp: string;
}

/** Properties are stored as JSON text; this bounds what one event may carry. */
const MAX_PROPERTIES_BYTES = 16_384;

export function trackEvent(rt: Pick<DevicesRuntime, 'events' | 'now'>, device: Device, input: unknown): TrackedEvent {
  // Checked on the raw input: parsing would silently drop an own `__proto__` key (while it refuses
  // `constructor`); both are refused alike, naming the key.
  const raw = input !== null && typeof input === 'object' ? (input as { properties?: unknown }).properties : undefined;
  assertPlainJson(raw ?? null, 'properties', 8);
  const e = parseInput(eventSchema, input);
  const properties = JSON.stringify(e.properties ?? {});
  if (Buffer.byteLength(properties) > MAX_PROPERTIES_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', `properties are limited to ${MAX_PROPERTIES_BYTES} bytes of JSON`, { field: 'properties' });
  if (!rt.events) throw new AppError('UNAVAILABLE', 'event tracking is not configured');
  const eventId = randomUUID();
  const timestamp = new Date(rt.now()).toISOString();
  rt.events.push({
    id: eventId,
    account_id: device.accountId,
    device_id: device.id,
    session_id: e.sessionId ?? '',
    event_name: e.eventName,
    timestamp,
    properties,
    latitude: device.location?.latitude ?? device.pingData?.latitude ?? null,
    longitude: device.location?.longitude ?? device.pingData?.longitude ?? null,
  });
  return { eventId, deviceId: device.id, timestamp: `${timestamp.slice(0, 19)}Z` };
}
