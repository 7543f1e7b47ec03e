// Time on the screen. Item timing uses the monotonic clock (performance.now), which never jumps
// when the system clock is corrected; wall-clock instants (play log timestamps, valid_until) use
// the server's time, learnt from every ping's server_time (whole seconds), as an offset.
let offsetMs = 0;
let known = false;

/** Server time now, in ms since the epoch. */
export const serverNow = () => Date.now() + offsetMs;
export const offset = () => offsetMs;
/** Whether a ping has told the server's time yet (before that the offset is a guess: 0). */
export const offsetKnown = () => known;

/**
 * A ping answered at `receivedAt` (Date.now()) said `serverTime` (ISO, truncated to the second):
 * the true server time then lies in [serverTime, serverTime + 1 s); take the middle. Smoothed so
 * one slow answer does not jerk the clock.
 */
export function learn(serverTime, receivedAt) {
  const t = Date.parse(serverTime);
  if (!Number.isFinite(t)) return;
  const sample = t + 500 - receivedAt;
  offsetMs = known ? Math.round(offsetMs * 0.7 + sample * 0.3) : sample;
  known = true;
}

/** Resolves at monotonic time `at` (ms, performance.now() scale), however long timers sleep. */
export function until(at, signal) {
  return new Promise((resolve) => {
    const tick = () => {
      if (signal && signal.aborted) return resolve(false);
      const left = at - performance.now();
      if (left <= 0) return resolve(true);
      // Timers may fire late (busy tab) but never early by more than a ms: re-check against the clock.
      setTimeout(tick, Math.min(left, 1000));
    };
    tick();
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const CHECK_EVERY_MS = 250;

/**
 * A layer's check of a manifest value against serverNow, repeated four times a second while the
 * value needs watching, so the layer flips at the value's instants without a reload or a ping.
 */
export class ClockCheck {
  constructor(check) {
    this.check = check;
    this.timer = null;
  }

  /** Checks now, and from now on every quarter second while `watching` (a new value replaces the old one's ticks). */
  restart(watching) {
    this.stop();
    if (watching) this.timer = setInterval(this.check, CHECK_EVERY_MS);
    this.check();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }
}
