// The power schedule: the manifest's `power` lists the stretches (server instants) in which the
// display is on between `from` and `until`; outside them the screen is blanked and the stage stopped,
// so nothing plays hidden and no proof of play is recorded. Judged by the corrected clock (clock.js
// serverNow), checked often, so the screen wakes at the edge without a reload or a ping, offline too.
// Past `until` (a manifest days old) the display stays on: a screen never stays dark on stale data.
// An emergency override still shows while the display is off (it covers this layer).
import { ClockCheck, serverNow } from './clock.js';

export class PowerLayer {
  /** @param onChange (off) => void, called when the display goes off (true) or on (false) */
  constructor(onChange) {
    this.onChange = onChange;
    this.power = null;
    this.isOff = false;
    this.clock = new ClockCheck(() => this.check());
    this.el = document.createElement('div');
    this.el.id = 'power-off';
    this.el.hidden = true;
    // Above the stage, under the override (z-index 5) and the operator's blackout.
    this.el.style.cssText = 'position:fixed;inset:0;background:#000;z-index:4;cursor:none';
    document.body.appendChild(this.el);
  }

  /** Whether the display is off by the schedule now. */
  off() {
    return this.isOff;
  }

  /** Takes the manifest's power schedule (or null: none, always on). */
  apply(power) {
    this.power = power || null;
    this.clock.restart(this.power);
  }

  check() {
    const p = this.power;
    const now = serverNow();
    const off = !!p && now >= Date.parse(p.from) && now < Date.parse(p.until) && !p.on.some((w) => now >= Date.parse(w.from) && now < Date.parse(w.to));
    if (off === this.isOff) return;
    this.isOff = off;
    this.el.hidden = !off;
    if (off) document.body.dataset.power = 'off';
    else delete document.body.dataset.power;
    this.onChange(off);
  }
}
