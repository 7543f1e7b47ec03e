/**
 * When a failed delivery is tried again: exponential backoff with full jitter, about 24 hours in
 * all by default (5 s, 10 s, 20 s, ... capped at 1 h per wait; 30 attempts), then DEAD. An endpoint
 * whose deliveries kept failing for `disableAfterMs` (default 24 h) with no success between is
 * disabled. Tests pass short delays.
 */
export interface RetryPolicy {
  baseMs: number;
  maxDelayMs: number;
  maxAttempts: number;
  disableAfterMs: number;
  /** Whole-attempt deadline (connect to last byte). */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 5_000, maxDelayMs: 3_600_000, maxAttempts: 30, disableAfterMs: 86_400_000, timeoutMs: 10_000 };

/** Delay before attempt `attempt + 1` (attempt counts from 1): full jitter in [delay/2, delay]. */
export function retryDelay(p: RetryPolicy, attempt: number, random = Math.random): number {
  const d = Math.min(p.maxDelayMs, p.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(d / 2 + random() * (d / 2));
}
