// The player API, authenticated by the registration key in the path.
import { keepManifest, keptManifest } from './manifest-cache.js';
export const PLAYER_VERSION = 'pylon-web/1.0.0';

/** Retry-After in seconds (the player API sends no dates), as ms; 0 when absent or unreadable. */
export const retryAfterMs = (res) => {
  const s = Number(res.headers.get('retry-after'));
  return Number.isFinite(s) && s > 0 ? Math.min(s, 86_400) * 1000 : 0;
};

export class PlayerApi {
  constructor(key) {
    this.key = key;
    this.base = `/player/${encodeURIComponent(key)}`;
  }

  /**
   * The manifest (304 when `etag` still holds). Kept in Cache Storage after it is read; offline, the
   * kept one answers (manifest-cache.js); it throws only offline with nothing kept.
   */
  async manifest(etag) {
    const path = `${this.base}/manifest`;
    let res;
    try {
      res = await fetch(path, { headers: etag ? { 'If-None-Match': etag } : {}, cache: 'no-store' });
    } catch (e) {
      const kept = await keptManifest(path);
      if (!kept) throw e;
      return { status: 200, etag: kept.headers.get('etag'), body: await kept.json() };
    }
    if (res.status === 304) return { status: 304 };
    if (!res.ok) return { status: res.status };
    const copy = res.clone();
    const body = await res.json();
    // Kept once the caller has applied it (the next task): an override reaches the glass first.
    setTimeout(() => void keepManifest(path, copy, body), 0);
    return { status: 200, etag: res.headers.get('etag'), body };
  }

  /**
   * A manifest that came inline in a ping's answer, kept as a GET of it would have been (for an
   * offline start), once the caller has applied it.
   */
  keepInline(body, etag) {
    const copy = new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json', ...(etag ? { ETag: etag } : {}) } });
    setTimeout(() => void keepManifest(`${this.base}/manifest`, copy, body), 0);
  }

  /**
   * `tables`: ids of the data tables on screen; a change to one of them ends the long-poll too.
   * `manifest=inline`: an answer announcing another manifest than the one held carries it (no GET after).
   */
  async ping(body, waitSeconds, tables, signal) {
    const shown = tables && tables.length ? `&tables=${tables.slice(0, 20).map(encodeURIComponent).join(',')}` : '';
    const res = await fetch(`${this.base}/ping?wait=${waitSeconds}&manifest=inline${shown}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
      cache: 'no-store',
    });
    return { status: res.status, body: res.ok ? await res.json() : null, retryAfterMs: retryAfterMs(res) };
  }

  async ack(commandId, status, message) {
    await fetch(`${this.base}/commands/${encodeURIComponent(commandId)}/ack`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(message ? { status, message: String(message).slice(0, 500) } : { status }),
    }).catch(() => undefined);
  }

  /** An emergency override shown (SHOWING) or taken off (ENDED): the status (0 when the server was not reached). */
  async ackOverride(overrideId, state) {
    const res = await fetch(`${this.base}/overrides/${encodeURIComponent(overrideId)}/ack`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ state }),
      cache: 'no-store',
    }).catch(() => null);
    return res ? res.status : 0;
  }

  async tableRows(tableId, etag) {
    const res = await fetch(`${this.base}/datatables/${encodeURIComponent(tableId)}/rows`, {
      headers: etag ? { 'If-None-Match': etag } : {},
      cache: 'no-store',
    });
    if (res.status !== 200) return { status: res.status };
    return { status: 200, etag: res.headers.get('etag'), body: await res.json() };
  }

  /** The status, and the server's Retry-After (ms, 0 without one) for a 429 or 503. */
  async playlogs(records) {
    const res = await fetch(`${this.base}/playlogs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(records) });
    return { status: res.status, retryAfterMs: retryAfterMs(res) };
  }

  async snap(blob) {
    const res = await fetch(`${this.base}/snap`, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body: blob });
    return res.status;
  }
}
