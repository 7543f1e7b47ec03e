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
}
