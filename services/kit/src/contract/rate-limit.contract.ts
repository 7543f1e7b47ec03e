/** The rate-limit port's contract: every adapter counts, refuses with a retry time, peeks without counting, and resets. */
import type { RateLimiter, RateLimitSpec } from '../ports/rate-limit.js';
import { uniqueName } from './wait.js';
import { afterAll, describe, expect, test } from './harness.js';

export function rateLimitContract(name: string, make: (spec: RateLimitSpec) => RateLimiter): void {
  describe(`rate limiter contract: ${name}`, () => {
    const limiters: RateLimiter[] = [];
    const limiter = (points: number, durationSeconds = 60) => {
      const l = make({ name: uniqueName('rl'), points, durationSeconds });
      limiters.push(l);
      return l;
    };
    afterAll(async () => {
      await Promise.all(limiters.map((l) => l.close()));
    });

    test('allows `points` hits per key, then refuses with Retry-After seconds', async () => {
      const l = limiter(3);
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await l.consume('k'));
      expect(decisions.slice(0, 3).map((d) => d.allowed)).toEqual([true, true, true]);
      expect(decisions[0]).toEqual({ allowed: true, remaining: 2 });
      const refused = decisions[3]!;
      expect(refused.allowed).toBe(false);
      if (!refused.allowed) {
        expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
    });

    test('keys are counted apart', async () => {
      const l = limiter(1);
      expect((await l.consume('a')).allowed).toBe(true);
      expect((await l.consume('a')).allowed).toBe(false);
      expect((await l.consume('b')).allowed).toBe(true);
    });

    test('peek tells without counting; reset forgets', async () => {
      const l = limiter(2);
      expect(await l.peek('p')).toEqual({ allowed: true, remaining: 2 });
      await l.consume('p');
      await l.consume('p');
      expect((await l.peek('p')).allowed).toBe(true); // at the limit, not over it
      await l.consume('p');
      expect((await l.peek('p')).allowed).toBe(false);
      await l.reset('p');
      expect(await l.peek('p')).toEqual({ allowed: true, remaining: 2 });
    });

    test('the window ends: hits are allowed again', async () => {
      const l = limiter(1, 1);
      await l.consume('w');
      expect((await l.consume('w')).allowed).toBe(false);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await l.consume('w')).allowed).toBe(true);
    });
  });
}
