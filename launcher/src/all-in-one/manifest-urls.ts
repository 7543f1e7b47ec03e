/**
 * Player manifests name every file by a signed address relative to the REST base unless
 * MEDIA_PUBLIC_BASE_URL makes them absolute. A player cannot resolve a relative address reliably, so
 * the all-in-one makes them absolute against the configured public base (MEDIA_PUBLIC_BASE_URL, the
 * setting RSS enclosures use too), else this server's own listening address; never the request's
 * Host header, which a caller controls.
 */
export function absoluteUrls<T>(value: T, base: string): T {
  if (Array.isArray(value)) return value.map((v: unknown) => absoluteUrls(v, base)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = k === 'url' && typeof v === 'string' && v.startsWith('/') ? new URL(v, base).href : absoluteUrls(v, base);
  return out as T;
}
