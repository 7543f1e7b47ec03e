// The web player's Service Worker (scope /play/): the screen keeps playing through an outage and a
// Pylon restart.
// - The page shell (/play, /play/assets/*): network first, the cached copy when the network fails.
// - The manifest: where static routing exists, the page fetches it past this worker and keeps it
//   itself (manifest-cache.js), then posts it here for its files; elsewhere this worker answers it,
//   network first, the cached copy when the network fails.
// - Files the manifest names: fetched whole and explicitly (the Cache API stores no partial
//   responses), checked against the manifest's sha512, stored under their address without the
//   query (signatures are renewed), and answered from the cache, Range requests included (a video
//   element asks for ranges; the cache does not answer them itself). Files no manifest names any
//   more are evicted; nothing is cached past 90% of the storage quota.
import { MANIFESTS } from './manifest-cache.js';

const SHELL = 'pylon-shell-v1';
const FILES = 'pylon-files-v1';

const fileKey = (url) => {
  const u = new URL(url, self.location.href);
  return `${u.origin}${u.pathname}`;
};
const isManifest = (url) => /^\/player\/[^/]+\/manifest$/.test(url.pathname);
const isShell = (url) =>
  url.origin === self.location.origin && (url.pathname === '/play' || url.pathname === '/play/' || url.pathname.startsWith('/play/assets/'));

self.addEventListener('install', (ev) => {
  // Pings, acknowledgements, play logs and screenshots (every POST) go to the network without waking
  // this worker (Service Worker static routing): its fetch handler lets them through anyway, and
  // dispatching each one to it cost a loaded screen hundreds of ms on an emergency override's path.
  // Browsers without static routing run the handler as before.
  // The manifest too: the page fetches it, keeps it in Cache Storage and falls back on it itself
  // (manifest-cache.js), and tells this worker to cache its files.
  if (typeof ev.addRoutes === 'function') {
    ev.waitUntil(
      Promise.all([
        ev.addRoutes([{ condition: { requestMethod: 'POST' }, source: 'network' }]).catch(() => undefined),
        ev.addRoutes([{ condition: { requestMethod: 'GET', urlPattern: '/player/*/manifest' }, source: 'network' }]).catch(() => undefined),
      ]),
    );
  }
  self.skipWaiting();
});
self.addEventListener('activate', (ev) => ev.waitUntil(self.clients.claim()));
self.addEventListener('message', (ev) => {
  if (ev.data && ev.data.type === 'clear') ev.waitUntil(Promise.all([caches.delete(FILES), caches.delete(MANIFESTS)]));
  // A manifest the page fetched past this worker (static routing) and kept: its files, in the background.
  if (ev.data && ev.data.type === 'manifest' && ev.data.manifest) ev.waitUntil(syncFiles(ev.data.manifest));
});

async function networkFirst(request, cacheName, key) {
  try {
    const res = await fetch(request);
    if (res.ok) {
      const cache = await caches.open(cacheName);
      await cache.put(key || request.url, res.clone());
    }
    return res;
  } catch (e) {
    const cached = await caches.match(key || request.url, { cacheName });
    if (cached) return cached;
    throw e;
  }
}

/** The manifest writes to Cache Storage, chained. */
let storing = Promise.resolve();

async function manifestResponse(ev) {
  const request = ev.request;
  const url = new URL(request.url);
  let res;
  try {
    // Asked without If-None-Match: the cache keeps a whole body to fall back on.
    res = await fetch(new Request(request.url, { headers: {}, cache: 'no-store' }));
  } catch (e) {
    const cached = await caches.match(url.pathname, { cacheName: MANIFESTS });
    if (cached) return cached;
    throw e;
  }
  if (res.status === 200) {
    // Kept for offline starts and files cached, after the page has its answer: an emergency override
    // reaches the glass without waiting for a Cache Storage write (the event stays alive until both end).
    // One write at a time, in the order the answers came, so an older manifest never lands last.
    const copy = res.clone();
    storing = storing
      .then(async () => {
        const body = await copy.clone().json();
        await (await caches.open(MANIFESTS)).put(url.pathname, copy);
        // Files are cached in the background; the page plays from the network meanwhile.
        void syncFiles(body).catch(() => undefined);
      })
      .catch(() => undefined);
    ev.waitUntil(storing);
    const tag = request.headers.get('if-none-match');
    if (tag && tag === res.headers.get('etag')) return new Response(null, { status: 304, headers: { etag: tag } });
  }
  return res;
}

function filesOf(manifest) {
  const out = new Map();
  const playlist = (p) => {
    for (const s of (p && p.sources) || []) if (s.media && s.media.url) out.set(fileKey(s.media.url), s.media);
  };
  for (const entry of [manifest.now, manifest.next]) {
    const c = entry && entry.content;
    if (!c) continue;
    if (c.type === 'playlist') playlist(c);
    else for (const m of c.modules || []) playlist(m.playlist);
  }
  return out;
}

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');

let syncing = Promise.resolve();
function syncFiles(manifest) {
  syncing = syncing.then(() => syncNow(manifest)).catch(() => undefined);
  return syncing;
}

async function syncNow(manifest) {
  const wanted = filesOf(manifest);
  const cache = await caches.open(FILES);
  // Evict what no manifest names.
  for (const req of await cache.keys()) if (!wanted.has(req.url)) await cache.delete(req);
  let have = 0;
  for (const [key, media] of wanted) {
    if (await cache.match(key)) {
      have++;
      continue;
    }
    if (navigator.storage && navigator.storage.estimate) {
      const { usage = 0, quota = 0 } = await navigator.storage.estimate();
      if (quota && usage + (media.size || 0) > quota * 0.9) continue;
    }
    try {
      const res = await fetch(media.url, { cache: 'no-store' });
      if (!res.ok) continue;
      const bytes = await res.arrayBuffer();
      if (media.sha512 && hex(await crypto.subtle.digest('SHA-512', bytes)) !== media.sha512.toLowerCase()) continue; // corrupt: next time
      await cache.put(
        key,
        new Response(bytes, { headers: { 'Content-Type': res.headers.get('content-type') || media.mime_type || 'application/octet-stream' } }),
      );
      have++;
    } catch {
      /* offline: next manifest */
    }
  }
  for (const client of await self.clients.matchAll()) client.postMessage({ type: 'cached', files: have, total: wanted.size });
}

/** A cached whole file, answering a Range request with 206 itself. */
async function fromCache(request, cached) {
  const range = request.headers.get('range');
  if (!range) return cached;
  const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  const blob = await cached.blob();
  const size = blob.size;
  if (!m || (m[1] === '' && m[2] === '')) return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  let start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  let end = m[1] !== '' && m[2] !== '' ? Math.min(Number(m[2]), size - 1) : size - 1;
  if (start >= size || start > end) return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  return new Response(blob.slice(start, end + 1), {
    status: 206,
    headers: {
      'Content-Type': cached.headers.get('content-type') || 'application/octet-stream',
      'Content-Range': `bytes ${start}-${end}/${size}`,
      'Content-Length': String(end - start + 1),
      'Accept-Ranges': 'bytes',
    },
  });
}

self.addEventListener('fetch', (ev) => {
  const request = ev.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (isManifest(url)) return ev.respondWith(manifestResponse(ev));
  if (isShell(url)) return ev.respondWith(networkFirst(request, SHELL, url.pathname === '/play' ? '/play/' : url.pathname));
  ev.respondWith(caches.match(fileKey(request.url), { cacheName: FILES }).then((cached) => (cached ? fromCache(request, cached) : fetch(request))));
});
