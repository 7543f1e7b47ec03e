/**
 * Where the player manifest comes from: the scheduling subgraph resolves what a device plays (with
 * content's help). In-process in the all-in-one; over HTTP to the scheduling process when distributed.
 * The devices service only authenticates the registration key and passes the device on.
 */
export interface ManifestDevice {
  accountId: string;
  id: string;
}

export interface ManifestSource {
  /** The manifest (a JSON object) and its ETag; null when the device has no manifest (gone). */
  manifest(device: ManifestDevice): Promise<{ body: { version: string } & Record<string, unknown>; etag: string } | null>;
  /** The current manifest version, cheap (cached): what a ping carries. */
  version(device: ManifestDevice): Promise<string | null>;
  /**
   * A screen's acknowledgement of an emergency override its manifest named (`{ state: SHOWING | ENDED }`):
   * the recorded per-screen state; NOT_FOUND when no override of the screen has that id.
   */
  acknowledgeOverride?(device: OverrideAckDevice, overrideId: string, body: unknown): Promise<{ override_id: string; device_id: string; state: string }>;
  /**
   * The device's display by its power schedule now: off, or on since `since` (the start of the
   * current on-window, null when none within a day or no schedule). Offline alerts read it.
   */
  power?(device: ManifestDevice): Promise<DisplayPower>;
}

export interface DisplayPower {
  on: boolean;
  since: number | null;
}

/** The device acknowledging, with what its push event and audit entry name. */
export interface OverrideAckDevice extends ManifestDevice {
  name: string;
  groupId: string | null;
  tags: string[];
}
