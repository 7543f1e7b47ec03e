/** Where a device's manifest version is cached (the cache port), shared by the manifest use-case and the runtime's default change hook. */
export const manifestCacheKey = (accountId: string, deviceId: string) => `manifest:v1:${accountId}:${deviceId}`;
