/**
 * A process start that waits for its backends instead of exiting: `retryUntil` repeats an attempt
 * with capped exponential back-off (full jitter, so replicas restarted together do not call a
 * recovering server in step) until it succeeds or the process is told to stop. Exiting instead
 * would hand the wait to the orchestrator, whose restart back-off (Kubernetes' CrashLoopBackOff)
 * grows to minutes and keeps a role down long after its backend is back.
 */

export interface RetryOptions {
  /** Aborting stops the retries: the pending wait ends at once and the result is undefined. */
  signal: AbortSignal;
  /** Called after each failed attempt, with the wait before the next one. */
  onFailure(err: unknown, attempt: number, retryInMs: number): void;
  /** Wait after the first failure (doubles each time). Default 500 ms. */
  firstDelayMs?: number;
  /** The longest wait between two attempts. Default 15 000 ms: a role is ready within that of its backend's return. */
  maxDelayMs?: number;
}

/** The wait before attempt `attempt + 1`: up to first * 2^(attempt-1), capped, at least half of that. */
export function backoffMs(attempt: number, firstDelayMs = 500, maxDelayMs = 15_000, random = Math.random): number {
  const ceiling = Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** Runs `attempt` until it resolves (its value) or `signal` aborts (undefined). An attempt in flight is not interrupted. */
export async function retryUntil<T>(attempt: (n: number) => Promise<T>, o: RetryOptions): Promise<T | undefined> {
  for (let n = 1; !o.signal.aborted; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (o.signal.aborted) return undefined;
      const wait = backoffMs(n, o.firstDelayMs, o.maxDelayMs);
      o.onFailure(err, n, wait);
      await sleep(wait, o.signal);
    }
  }
  return undefined;
}
