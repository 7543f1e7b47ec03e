// The last manifest, kept by the page in Cache Storage for an offline start or an outage. The page
// fetches the manifest from the network itself (the Service Worker's static routing lets it by
// without waking the worker: a worker stopped while idle took seconds to start on a loaded screen,
// on an emergency override's path), keeps each one after it has applied it, and reads the kept one
// when the network fails. The Service Worker reads the same cache when it starts the page offline,
// and is told of each manifest to fetch its files in the background.
export const MANIFESTS = 'pylon-manifest-v1';

/** One write at a time, in the order the manifests came, so an older one never lands last. */
let storing = Promise.resolve();

/** Keeps `response` (an unread copy of the manifest answer at `path`) and has the worker cache the files `body` names. */
export function keepManifest(path, response, body) {
  storing = storing
    .then(async () => {
      if (typeof caches !== 'undefined') await (await caches.open(MANIFESTS)).put(path, response);
      const sw = typeof navigator !== 'undefined' ? navigator.serviceWorker : undefined;
      const reg = sw ? await sw.getRegistration() : undefined;
      // Before the worker is active (the first start), once it is: never holds up the next write.
      if (reg) void (reg.active ? Promise.resolve(reg) : sw.ready).then((r) => r.active && r.active.postMessage({ type: 'manifest', manifest: body }));
    })
    .catch(() => undefined);
  return storing;
}

/** The kept manifest answer for `path`, or null (none yet, or no Cache Storage). */
export async function keptManifest(path) {
  if (typeof caches === 'undefined') return null;
  return (await caches.match(path, { cacheName: MANIFESTS }).catch(() => undefined)) || null;
}
