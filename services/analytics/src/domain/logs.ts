/** Analytics log records as the GraphQL interface shows them. */

/** limit of the log queries: default 1000, at most 10000 (spec, Limits). */
export const LOG_LIMIT = { default: 1000, max: 10_000 } as const;

export interface PlayLog {
  id: string;
  /** YYYY-MM-DDTHH:MM:SSZ. */
  timestamp: string;
  deviceId: string;
  fileId: string | null;
  fileName: string | null;
  /** Seconds. */
  duration: number | null;
  type: string | null;
  /** YYYY-MM-DDTHH:MM:SSZ, or null when not reported. */
  endTimestamp: string | null;
  /** completed | skipped | failed. */
  status: string;
  /** Server time minus player time (ms), or null when not reported. */
  clockOffsetMs: number | null;
  /** Template module id, or null. */
  zoneId: string | null;
}

export interface PingLog {
  id: string;
  /** YYYY-MM-DDTHH:MM:SSZ. */
  timestamp: string;
  deviceId: string;
  cpuUsage: number | null;
  memoryUsage: number | null;
  diskUsage: number | null;
  ipAddress: string | null;
  externalIpAddress: string | null;
}

export interface LogQuery {
  accountId: string;
  range: { from: Date; to: Date };
  /** Empty: every device. */
  deviceIds: string[];
  /** Empty: every file. Play logs only: ping logs carry no file, and their query refuses a non-empty list. */
  fileIds: string[];
  limit: number;
  /** The `where` / `order` inputs as given (validated when translated to SQL). */
  where?: unknown;
  order?: unknown;
}
