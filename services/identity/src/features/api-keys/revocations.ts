/**
 * Revocation events: a revoked key's hash, written to the documents store, so that every process
 * caching principals (this one, the server while the admin CLI revokes, other replicas) forgets
 * the key within one poll interval, whatever cache backend it uses. Events older than a day are
 * pruned: by then every cached principal has expired anyway (PRINCIPAL_CACHE_SECONDS <= 3600).
 */
import type { IdentityRepository } from '../../shared/identity.repository.js';

const KEEP_MS = 86_400_000;

/** Pub/sub channel on which the identity service announces revoked key hashes ({ hash }) to gateways. */
export const KEY_REVOKED_CHANNEL = 'pylon.key-revoked';

export async function recordRevocation(repo: IdentityRepository, hash: string): Promise<void> {
  await repo.addRevocation(hash);
}

export interface RevocationWatcher {
  /** One poll now (tests; the timer polls by itself). */
  poll(): Promise<void>;
  close(): Promise<void>;
}

/** Calls `onRevoked(hash)` for every revocation recorded after the watcher started, polling every `intervalMs`. */
export function watchRevocations(
  repo: IdentityRepository,
  onRevoked: (hash: string) => Promise<void> | void,
  opts: { intervalMs?: number; now?: () => number } = {},
): RevocationWatcher {
  const now = opts.now ?? Date.now;
  // A little overlap, so an event written while this process started is not missed.
  let since = new Date(now() - 5_000).toISOString();
  const seen = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let lastPrune = 0;
  const pollOnce = async () => {
    const events = await repo.revocationsSince(since);
    for (const e of events) {
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      await onRevoked(e.hash);
      if (e.createdAt > since) since = e.createdAt;
    }
    // Ids at the current watermark stay remembered; older ones can go.
    if (seen.size > 1000) for (const id of [...seen].slice(0, seen.size - 500)) seen.delete(id);
    if (now() - lastPrune > 3_600_000) {
      lastPrune = now();
      await repo.pruneRevocations(new Date(now() - KEEP_MS).toISOString(), 1000);
    }
  };
  const poll = () => (running = running.then(pollOnce).catch(() => undefined));
  const timer = setInterval(() => void poll(), opts.intervalMs ?? 1_000);
  timer.unref();
  return {
    poll,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
