// The emergency override layer: what the manifest's `override` names covers everything the stage
// plays while the server's time lies within [starts_at, ends_at), then goes. It is judged by the
// corrected clock (clock.js serverNow), never by the manifest's age: an override that ended is not
// shown from a cached manifest, even offline, and a future one starts at its instant without a ping.
// The screen acknowledges SHOWING once the content is on the glass (a message painted, a playlist's
// first item shown) and ENDED once it took it off; an acknowledgement that fails is retried until the
// server records it (or answers that the override is not this screen's).
import { ClockCheck, serverNow } from './clock.js';
import { Zone } from './zone.js';

const ACK_RETRY_MS = 2000;

const instant = (iso) => (iso ? Date.parse(iso) : null);

export class OverrideLayer {
  /**
   * @param root the layer's element (above the stage)
   * @param ctx { api, onChange(covering), ...the zone context (onPlayed, onProblem, volume, autoplay) }
   */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.wanted = null; // the manifest's override
    this.shown = null; // { id, zone, el }
    this.acks = new Map(); // `${id}:${state}` -> { id, state } not yet recorded
    this.clock = new ClockCheck(() => this.check());
    this.ackTimer = null;
  }

  /** Whether an override covers the screen now. */
  covering() {
    return this.shown !== null;
  }

  /** Takes the manifest's override (or null: none) and shows or hides it by the clock. */
  apply(override) {
    this.wanted = override || null;
    this.clock.restart(this.wanted);
  }

  check() {
    const o = this.wanted;
    const now = serverNow();
    const live = o && now >= instant(o.starts_at) && (o.ends_at === null || now < instant(o.ends_at));
    if (this.shown && (!live || this.shown.id !== o.id)) this.hide();
    if (live && !this.shown) this.show(o);
    if (o && o.ends_at !== null && now >= instant(o.ends_at)) {
      // Over by the clock: nothing left to watch for in this manifest.
      this.clock.stop();
    }
  }

  show(o) {
    const el = document.createElement('div');
    el.className = 'override-content';
    this.root.appendChild(el);
    this.root.hidden = false;
    const shown = { id: o.id, el, zone: null };
    this.shown = shown;
    document.body.dataset.override = o.id;
    const onScreen = () => {
      if (this.shown === shown) this.ack(o.id, 'SHOWING');
    };
    const c = o.content;
    if (c && c.type === 'message') {
      el.classList.add('override-message');
      el.style.background = c.background_color;
      el.style.color = c.text_color;
      const p = document.createElement('p');
      p.textContent = c.text;
      el.appendChild(p);
      requestAnimationFrame(() => requestAnimationFrame(onScreen));
    } else if (c && c.type === 'playlist') {
      shown.zone = new Zone(el, c, { ...this.ctx, zoneId: null, scheduleId: null, onStarted: onScreen });
      shown.zone.start();
    } else {
      // Its media or playlist is gone: the screen still goes dark for the emergency rather than play ads.
      requestAnimationFrame(onScreen);
    }
    this.ctx.onChange(true);
  }

  hide() {
    const shown = this.shown;
    this.shown = null;
    if (shown.zone) shown.zone.stop();
    shown.el.remove();
    this.root.hidden = true;
    delete document.body.dataset.override;
    this.ctx.onChange(false);
    this.ack(shown.id, 'ENDED');
  }

  /** What the override plays now (pings and screenshots), if anything. */
  playing() {
    return this.shown && this.shown.zone ? this.shown.zone.playing() : null;
  }

  ack(id, state) {
    this.acks.set(`${id}:${state}`, { id, state });
    void this.sendAcks();
  }

  async sendAcks() {
    clearTimeout(this.ackTimer);
    for (const [k, a] of this.acks) {
      const status = await this.ctx.api.ackOverride(a.id, a.state);
      // 2xx recorded; 4xx will never be (not this screen's, or gone): drop either way.
      if (status >= 200 && status < 500) this.acks.delete(k);
      // The last acknowledgement the server recorded, and when by this page's clock (tests and the bench read them).
      if (status >= 200 && status < 300) {
        document.body.dataset.overrideAcked = `${a.id}:${a.state}`;
        document.body.dataset.overrideAckedAt = String(Date.now());
      }
    }
    document.body.dataset.overrideAcksPending = String(this.acks.size);
    if (this.acks.size) this.ackTimer = setTimeout(() => void this.sendAcks(), ACK_RETRY_MS);
  }
}
