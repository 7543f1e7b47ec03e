/**
 * Rate limits at the edge, around any EdgeAuthenticator: a client address over its failed-
 * authentication budget is refused before its credentials are even checked (brute force), and
 * each API key (or each OAuth user) gets `points` requests per window. Refusals are AppError
 * RATE_LIMITED with details.retryAfter; every interface renders them as 429 + Retry-After.
 */
import { AppError, type Logger, type RateLimitDecision, type RateLimiter } from '@pylon/kit';
import { requestKey, type EdgeAuthenticator } from './edge-auth.js';

export interface EdgeLimits {
  /** Per API key / per OAuth user. */
  requests: RateLimiter;
  /** Failed authentications per client address. */
  failures: RateLimiter;
  logger?: Logger;
}

export const rateLimited = (retryAfter: number, message: string) => new AppError('RATE_LIMITED', `${message}; retry in ${retryAfter} s`, { retryAfter });

export function limitedAuthenticator(inner: EdgeAuthenticator, limits: EdgeLimits): EdgeAuthenticator {
  // A limiter that fails (not a refusal: an error) must not take the API down: decide "allowed".
  const safely = async (what: string, run: () => Promise<RateLimitDecision>): Promise<RateLimitDecision> => {
    try {
      return await run();
    } catch (err) {
      limits.logger?.warn({ err, limiter: what }, 'rate limiter failed; request allowed');
      return { allowed: true, remaining: 0 };
    }
  };
  return {
    async authenticate(creds) {
      const ipKey = `ip:${creds.ip ?? 'unknown'}`;
      const blocked = await safely('failures', () => limits.failures.peek(ipKey));
      if (!blocked.allowed) throw rateLimited(blocked.retryAfterSeconds, 'too many failed authentication attempts from this address');
      const principal = await inner.authenticate(creds);
      if (!principal) {
        const after = await safely('failures', () => limits.failures.consume(ipKey));
        if (!after.allowed) throw rateLimited(after.retryAfterSeconds, 'too many failed authentication attempts from this address');
        return null;
      }
      const decision = await safely('requests', () => limits.requests.consume(requestKey(creds, principal)));
      if (!decision.allowed)
        throw rateLimited(decision.retryAfterSeconds, creds.apiKey ? 'rate limit exceeded for this API key' : 'rate limit exceeded for this user');
      return principal;
    },
  };
}
