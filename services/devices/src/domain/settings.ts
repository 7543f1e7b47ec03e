/** The devices subgraph's tunables (config.ts reads them from the environment). */
export interface DevicesSettings {
  /** A device is online while its last ping is younger than this. */
  onlineWindowSeconds: number;
  /** How long a queued command stays deliverable. Default 24 h. */
  commandTtlSeconds: number;
  /** Period of the alert/command sweep; 0 runs no timer (tests call runtime.sweep()). Default 0. */
  sweepIntervalSeconds: number;
  /** Largest screenshot accepted. Default 2 MB. */
  maxSnapBytes: number;
  /** Longest long-poll (`?wait=`) of a ping. Default 30 s. */
  maxPingWaitSeconds: number;
  /** Finished commands are deleted after this many days. Default 7. */
  commandRetentionDays: number;
  /** Player records (play logs, events, impressions) older than this are refused. Default 90. */
  playerRecordMaxAgeDays: number;
  /**
   * Whether a player's records may be acknowledged once they wait in the local spool (true, the
   * default) or only once the stream holds them (false: while the stream refuses, the player gets
   * 503 and sends them again). False where the spool does not outlive the pod (k8s/).
   */
  spoolHeldRecords: boolean;
}

export const DEFAULT_SETTINGS: Omit<DevicesSettings, 'onlineWindowSeconds'> = {
  commandTtlSeconds: 86_400,
  sweepIntervalSeconds: 0,
  maxSnapBytes: 2_000_000,
  maxPingWaitSeconds: 30,
  commandRetentionDays: 7,
  playerRecordMaxAgeDays: 90,
  spoolHeldRecords: true,
};
