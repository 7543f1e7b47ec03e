/**
 * Rate-limit port: fixed-window counters per key (an API key's hash, a token, an IP).
 * Embedded adapter: in-process counters (one replica). Scaled adapter: Redis, shared by every
 * replica, with an in-process insurance limiter that takes over while Redis is unreachable,
 * so a Redis outage never turns into unlimited access or into 500s.
 */
export type RateLimitDecision =
  { allowed: true; remaining: number } | { allowed: false; /** Whole seconds until the window resets (at least 1). */ retryAfterSeconds: number };

export interface RateLimiter {
  /** Counts one hit (or `points`) against the key. */
  consume(key: string, points?: number): Promise<RateLimitDecision>;
  /** What `consume` would answer for a zero-cost hit, without counting one. */
  peek(key: string): Promise<RateLimitDecision>;
  /** Forgets the key's counter (e.g. after a successful login). */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface RateLimitSpec {
  /** Names the counters (key prefix), e.g. 'key' or 'auth-fail'. */
  name: string;
  /** Hits allowed per window. */
  points: number;
  /** Window length in seconds. */
  durationSeconds: number;
  /** Once exceeded, refuse for this long (default: until the window ends). */
  blockSeconds?: number;
}
