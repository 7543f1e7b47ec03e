/**
 * The body a player posts with each ping: the reference PingData (snake_case), every field
 * optional, unknown fields refused by name. `timestamp` and `external_ip_address` are accepted
 * but the service's own clock and the observed address are stored instead (isOnline must not
 * depend on a player's clock). `snap` may carry a base64 JPEG screenshot.
 */
import { z } from 'zod';
import type { PingData } from './device.js';
import { parseInput } from './validation.js';

const pct = z.number().min(0).max(100).nullable().optional();
const str = (max: number) => z.string().max(max).nullable().optional();
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();

const pingSchema = z
  .object({
    type: str(100),
    snap: z.string().max(20_000_000).nullable().optional(),
    player_version: str(100),
    os_version: str(200),
    cpu_usage: pct,
    memory_usage: pct,
    disk_usage: pct,
    mac_address: str(100),
    timestamp: str(40),
    bytes_received: count,
    transfer_rate: count,
    ip_address: str(100),
    latitude: z.number().min(-90).max(90).nullable().optional(),
    longitude: z.number().min(-180).max(180).nullable().optional(),
    current_schedule: str(500),
    uptime: count,
    external_ip_address: str(100),
    download_pct_complete: z.number().min(0).max(100).nullable().optional(),
    meta: z.record(z.string().max(100), z.string().max(1000).nullable()).nullable().optional(),
    cpu_temperature: z.number().min(-100).max(200).nullable().optional(),
  })
  .strict();

export interface ParsedPing {
  /** Ping data without the service-owned timestamp and external address. */
  data: Omit<PingData, 'timestamp' | 'externalIpAddress'>;
  /** Base64 screenshot sent inline, if any. */
  snapBase64: string | null;
}

export function parsePing(body: unknown): ParsedPing {
  const p = parseInput(pingSchema, body ?? {});
  const n = <T>(v: T | null | undefined) => v ?? null;
  return {
    data: {
      cpuUsage: n(p.cpu_usage),
      memoryUsage: n(p.memory_usage),
      diskUsage: n(p.disk_usage),
      playerVersion: n(p.player_version),
      ipAddress: n(p.ip_address),
      osVersion: n(p.os_version),
      macAddress: n(p.mac_address),
      uptime: n(p.uptime),
      cpuTemperature: n(p.cpu_temperature),
      latitude: n(p.latitude),
      longitude: n(p.longitude),
      currentSchedule: n(p.current_schedule),
      bytesReceived: n(p.bytes_received),
      transferRate: n(p.transfer_rate),
      downloadPctComplete: n(p.download_pct_complete),
      type: n(p.type),
      meta: n(p.meta),
    },
    snapBase64: p.snap ?? null,
  };
}
