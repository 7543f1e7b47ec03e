/**
 * The devices subgraph's settings, declared once: its own process (main.ts) and the all-in-one
 * (launcher/src/all-in-one.config.ts) both spread `devicesEnv` into their zod schema and build the subgraph's
 * options with `devicesOptions`.
 */
import { z } from 'zod';
import { envBool, envInt } from '@pylon/kit';
import type { DevicesDeps } from './app.js';

export const devicesEnv = {
  /** A device is online while its last ping is younger than this. */
  DEVICE_ONLINE_WINDOW_SECONDS: envInt(600, 10, 86400),
  /** A queued command not delivered (or acknowledged) by then is expired. */
  DEVICE_COMMAND_TTL_SECONDS: envInt(86_400, 60, 30 * 86_400),
  /** Period of the sweep: offline alerts, stale threshold alerts, command expiry and pruning (0: off). */
  DEVICE_SWEEP_SECONDS: envInt(60, 0, 3600),
  /** Largest screenshot a player may upload. */
  DEVICE_SNAP_MAX_BYTES: envInt(2_000_000, 10_000, 50_000_000),
  /** Longest long-poll (`?wait=`) of a player ping. */
  DEVICE_PING_MAX_WAIT_SECONDS: envInt(30, 0, 300),
  /** Unknown registration keys one client address may send per window before the player API answers 429. */
  PLAYER_AUTH_FAILURE_POINTS: envInt(30, 1, 1_000_000),
  PLAYER_AUTH_FAILURE_WINDOW_SECONDS: envInt(300, 1, 86400),
  /** Play logs, events and impressions a player sends may be at most this many days old. */
  PLAYER_RECORD_MAX_AGE_DAYS: envInt(90, 1, 3650),
  /**
   * true: a player's records are acknowledged once in the stream or in the local spool
   * (SIGNAGE_DATA_DIR/spool); false: only once in the stream (503 while it refuses; the player sends
   * them again). k8s/ sets false: a pod's spool does not survive the pod (docs/operations/deployment.md).
   */
  PLAYER_RECORDS_SPOOL: envBool(true),
};

export type DevicesEnv = z.infer<z.ZodObject<typeof devicesEnv>>;

/** The devices process (main.ts) also reaches four other processes. */
export const devicesProcessEnv = {
  ...devicesEnv,
  /** The identity subgraph, asked whether an orgId is the caller's (compose/k8s service name by default). */
  IDENTITY_URL: z.string().url().default('http://identity:4001'),
  /** The scheduling subgraph, which resolves the player manifests this process serves. */
  SCHEDULING_URL: z.string().url().default('http://scheduling:4001'),
  /** The content subgraph, asked for the names of the media files play logs name. */
  CONTENT_URL: z.string().url().default('http://content:4001'),
  /** The datatables process, which answers screens' menu-board rows (its internal routes). */
  DATATABLES_URL: z.string().url().default('http://datatables:4001'),
};

/** The player API's failed-key limiter (createRateLimiter builds it over the cache driver). */
export const playerFailureLimit = (env: DevicesEnv) => ({
  name: 'player-auth-failures',
  points: env.PLAYER_AUTH_FAILURE_POINTS,
  durationSeconds: env.PLAYER_AUTH_FAILURE_WINDOW_SECONDS,
});

/** The subgraph options these settings decide. */
export function devicesOptions(env: DevicesEnv): Pick<DevicesDeps, 'onlineWindowSeconds' | 'settings'> {
  return {
    onlineWindowSeconds: env.DEVICE_ONLINE_WINDOW_SECONDS,
    settings: {
      commandTtlSeconds: env.DEVICE_COMMAND_TTL_SECONDS,
      sweepIntervalSeconds: env.DEVICE_SWEEP_SECONDS,
      maxSnapBytes: env.DEVICE_SNAP_MAX_BYTES,
      maxPingWaitSeconds: env.DEVICE_PING_MAX_WAIT_SECONDS,
      playerRecordMaxAgeDays: env.PLAYER_RECORD_MAX_AGE_DAYS,
      spoolHeldRecords: env.PLAYER_RECORDS_SPOOL,
    },
  };
}
