/** Small helpers shared by the stream, cache and blob contract suites (and their tests). */
import { randomBytes } from 'node:crypto';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A name unique to this run, safe for topics, groups, keys and channels. */
export const uniqueName = (base: string) => `${base}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;

/** Polls until `check` returns true; throws with `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Resolves to whether `p` settled within `ms`. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  const guard = p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await Promise.race([guard, sleep(ms)]);
  return settled;
}
