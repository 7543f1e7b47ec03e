/** Where a device's manifest version is cached (the cache port), shared by the manifest use-case and its invalidation (manifest-changes). */
export const manifestCacheKey = (accountId: string, deviceId: string) => `manifest:v1:${accountId}:${deviceId}`;

/**
 * A device's invalidation generation: every change that may alter its manifest bumps it, and a cached
 * version counts only while it carries the generation read before the data it was computed from. A
 * ping that computed from data read just before an edit and cached its answer after the edit's
 * invalidation (the race that kept a stale version up to MAX_CACHE_SECONDS) leaves an entry that no
 * longer counts.
 */
export const manifestGenerationKey = (accountId: string, deviceId: string) => `manifest-gen:v1:${accountId}:${deviceId}`;

/** How long a generation outlives its last bump: far beyond any cached version's life (at most MAX_CACHE_SECONDS). */
export const GENERATION_TTL_SECONDS = 7 * 86_400;
