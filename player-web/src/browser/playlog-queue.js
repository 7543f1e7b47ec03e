// Proof of play: each play (completed, or skipped/failed with that status) is a record with its own id, written to IndexedDB at once
// (so neither an outage nor a reload loses it) and deleted only after the ingestion API answered
// 2xx for the batch holding it. The server keeps records by id, so a batch sent twice (the answer
// was lost) is stored once.
const DB = 'pylon-player';
const STORE = 'playlogs';
const BATCH = 200;
/**
 * After a send fails (no answer, 429, 5xx): no send before a wait with full jitter, from the first
 * failure on (without it, every play and ping flushed again: one screen sent 63 POSTs in 4.3 s),
 * doubling per failure up to RETRY_MAX_MS; a success resets it.
 */
const RETRY_FIRST_MS = 2000;
const RETRY_MAX_MS = 60_000;

/** A wait of about `ms`: uniformly from half to the whole of it (jitter spreads a fleet's retries). */
export const jittered = (ms) => Math.round(ms / 2 + Math.random() * (ms / 2));

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

const done = (tx) =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });

export class PlaylogQueue {
  constructor(api, log) {
    this.api = api;
    this.log = log;
    this.db = open();
    this.sending = null;
    this.sent = 0;
    this.attempts = 0;
    this.retryAt = 0;
    this.retryMs = RETRY_FIRST_MS;
  }

  /** A send failed: none before the jittered wait, nor before the server's Retry-After (a per-screen limit, 429; or 503). */
  backOff(retryAfterMs = 0) {
    this.retryAt = performance.now() + Math.max(jittered(this.retryMs), retryAfterMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  async add(record) {
    const db = await this.db;
    const tx = db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(record);
    await done(tx);
  }

  async pending() {
    const db = await this.db;
    return new Promise((resolve, reject) => {
      const req = db.transaction(STORE, 'readonly').objectStore(STORE).count();
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }

  async batch() {
    const db = await this.db;
    return new Promise((resolve, reject) => {
      const out = [];
      const req = db.transaction(STORE, 'readonly').objectStore(STORE).openCursor();
      req.onsuccess = () => {
        const c = req.result;
        if (!c || out.length >= BATCH) return resolve(out);
        out.push(c.value);
        c.continue();
      };
      req.onerror = () => reject(req.error);
    });
  }

  async remove(ids) {
    const db = await this.db;
    const tx = db.transaction(STORE, 'readwrite');
    for (const id of ids) tx.objectStore(STORE).delete(id);
    await done(tx);
  }

  /** Sends everything queued, batch by batch; stops at the first batch not acknowledged. One flush at a time. */
  flush() {
    if (!this.sending) this.sending = this.drain().finally(() => (this.sending = null));
    return this.sending;
  }

  async drain() {
    for (;;) {
      if (performance.now() < this.retryAt) return; // backing off: they wait in IndexedDB
      const records = await this.batch();
      if (records.length === 0) return;
      let status, retryAfterMs;
      this.attempts++;
      try {
        ({ status, retryAfterMs } = await this.api.playlogs(records));
      } catch {
        return this.backOff(); // offline: they wait in IndexedDB
      }
      if (status >= 200 && status < 300) {
        this.retryMs = RETRY_FIRST_MS;
        await this.remove(records.map((r) => r.id));
        this.sent += records.length;
      } else if (status === 400 || status === 413) {
        // A batch the server will never take (e.g. records past the age limit): set aside, not retried forever.
        this.log(`play logs refused (${status}); ${records.length} dropped`);
        await this.remove(records.map((r) => r.id));
      } else {
        return this.backOff(retryAfterMs); // 401, 429, 503: later
      }
    }
  }
}
