/**
 * The devices subgraph's settings, declared once: its own process (main.ts) and the all-in-one
 * (launcher/src/all-in-one.config.ts) both spread `devicesEnv` into their zod schema and build the subgraph's
 * options with `devicesOptions`.
 */
import type { z } from 'zod';
import { envBool, envInt, envSubgraphUrl, jobsEnv, type RateLimiter, type RateLimitSpec } from '@pylon/kit';
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
  /**
   * Telemetry one screen may send, by kind: records per second on average and a burst it may send
   * at once (issue 34, M4); beyond, 429 with Retry-After. Pings count pings, command acks and snaps;
   * events count tracked events and event batches. A burst holds at least one full batch (1,000).
   */
  PLAYER_PINGS_PER_SECOND: envInt(1, 1, 1_000_000_000),
  PLAYER_PINGS_BURST: envInt(60, 1, 1_000_000_000),
  PLAYER_PLAYLOGS_PER_SECOND: envInt(100, 1, 1_000_000_000),
  PLAYER_PLAYLOGS_BURST: envInt(10_000, 1_000, 1_000_000_000),
  PLAYER_EVENTS_PER_SECOND: envInt(100, 1, 1_000_000_000),
  PLAYER_EVENTS_BURST: envInt(10_000, 1_000, 1_000_000_000),
  PLAYER_IMPRESSIONS_PER_SECOND: envInt(100, 1, 1_000_000_000),
  PLAYER_IMPRESSIONS_BURST: envInt(10_000, 1_000, 1_000_000_000),
};

export type DevicesEnv = z.infer<z.ZodObject<typeof devicesEnv>>;

/** The devices process (main.ts) also reaches four other processes. */
export const devicesProcessEnv = {
  ...devicesEnv,
  /** Fleet-wide bulk jobs run in this process (kit jobs.ts settings). */
  ...jobsEnv,
  /** The identity subgraph, asked whether an orgId is the caller's (compose/k8s service name by default). */
  IDENTITY_URL: envSubgraphUrl('identity'),
  /** The scheduling subgraph, which resolves the player manifests this process serves. */
  SCHEDULING_URL: envSubgraphUrl('scheduling'),
  /** The content subgraph, asked for the names of the media files play logs name. */
  CONTENT_URL: envSubgraphUrl('content'),
  /** The datatables process, which answers screens' menu-board rows (its internal routes). */
  DATATABLES_URL: envSubgraphUrl('datatables'),
};

/** The player API's failed-key limiter (createRateLimiter builds it over the cache driver). */
export const playerFailureLimit = (env: DevicesEnv) => ({
  name: 'player-auth-failures',
  points: env.PLAYER_AUTH_FAILURE_POINTS,
  durationSeconds: env.PLAYER_AUTH_FAILURE_WINDOW_SECONDS,
});

export const TELEMETRY_KINDS = ['pings', 'playlogs', 'events', 'impressions'] as const;
export type TelemetryKind = (typeof TELEMETRY_KINDS)[number];

export interface TelemetryLimit {
  limiter: RateLimiter;
  perSecond: number;
  burst: number;
}

/**
 * The per-screen telemetry limiters, built over the cache driver by `make` (createRateLimiter: Redis
 * when scaled). The port counts fixed windows: a window of burst / rate seconds holding `burst`
 * records is a screen's burst at once and its rate on average.
 */
export async function playerTelemetryLimits(
  env: DevicesEnv,
  make: (spec: RateLimitSpec) => Promise<RateLimiter>,
): Promise<Record<TelemetryKind, TelemetryLimit>> {
  const settings = (kind: TelemetryKind) => {
    const upper = kind.toUpperCase() as Uppercase<TelemetryKind>;
    return { perSecond: env[`PLAYER_${upper}_PER_SECOND`], burst: env[`PLAYER_${upper}_BURST`] };
  };
  const built = await Promise.all(
    TELEMETRY_KINDS.map(async (kind) => {
      const { perSecond, burst } = settings(kind);
      const limiter = await make({ name: `player-${kind}`, points: burst, durationSeconds: Math.max(1, Math.ceil(burst / perSecond)) });
      return [kind, { limiter, perSecond, burst }] as const;
    }),
  );
  return Object.fromEntries(built) as Record<TelemetryKind, TelemetryLimit>;
}

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
