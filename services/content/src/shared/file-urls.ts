/**
 * Signed, expiring file addresses: `/content/files/<account>/<key>?expires=<unix>&signature=<hmac>`.
 * A player or browser fetches media without an API key (keys never go into URLs we hand out);
 * the signature binds account, key and expiry. Expiries are rounded up to the next TTL/2 boundary,
 * so the same file keeps the same address for a while and caches (ETag, Cache-Control) work.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const FILES_PATH = '/content/files';

export class FileUrls {
  constructor(
    private readonly secret: string,
    private readonly ttlSeconds: number,
    private readonly base: string,
    private readonly now: () => number,
  ) {}

  private sign(account: string, key: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`content-file\n${account}\n${key}\n${expires}`).digest('base64url');
  }

  /** The address of a stored blob, valid for at least ttl/2 from now. */
  urlFor(account: string, key: string): string {
    const step = Math.max(1, Math.floor(this.ttlSeconds / 2));
    const expires = (Math.floor(this.now() / 1000 / step) + 2) * step;
    const path = `${FILES_PATH}/${encodeURIComponent(account)}/${encodeURIComponent(key)}`;
    return `${this.base.replace(/\/$/, '')}${path}?expires=${expires}&signature=${this.sign(account, key, expires)}`;
  }

  /** Whether a signature is genuine and unexpired; seconds left when it is. */
  verify(account: string, key: string, expires: unknown, signature: unknown): number | null {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return null;
    const left = Number(expires) - Math.floor(this.now() / 1000);
    if (left <= 0) return null;
    const want = Buffer.from(this.sign(account, key, Number(expires)));
    const got = Buffer.from(signature);
    return want.length === got.length && timingSafeEqual(want, got) ? left : null;
  }
}
