// One zone (a whole-screen playlist, or one module of a template) playing its playlist in order.
//
// Gapless: while an item shows, the next is prepared in a new element stacked above it at opacity
// 0 (an image decoded, a video buffered to `canplay`); when the item's time is up the new one fades
// in over it, and only once it is fully opaque is the old element torn down (no black frame).
// Timing uses the monotonic clock. A video that has not started within START_TIMEOUT_MS is skipped,
// reported (a play log with status `skipped`) and set aside for SET_ASIDE_MS; a video that stops
// while showing ends its play log as `failed`. Only NotAllowedError from play() is an autoplay block
// (then it plays muted); other rejections are transient and retried once.
import { serverNow, until } from './clock.js';
import { atServerTime, nextEdge, validAt } from './expiry.js';

const DEFAULT_IMAGE_SECONDS = 10;
const DEFAULT_WEB_SECONDS = 30;
/**
 * A web page plays in a sandboxed frame: its own scripts and its own origin's storage, but no top
 * navigation, popups, forms or downloads, and no access to this page (another origin).
 */
const WEB_SANDBOX = 'allow-scripts allow-same-origin';
const START_TIMEOUT_MS = 8000;
const SET_ASIDE_MS = 5 * 60_000;
const FADE_MS = 450;

const kindOf = (source) => {
  if (source.page_url && (source.type === 'WEB_PAGE' || source.type === 'URL')) return 'web';
  const mime = (source.media && source.media.mime_type) || '';
  if (mime.startsWith('video/') || source.type === 'VIDEO') return 'video';
  if (mime.startsWith('image/') || source.type === 'IMAGE' || source.type === 'SVG') return 'image';
  return null;
};

/** What a playlist's sources give the zone: playable items in play order. */
export function playableItems(playlist) {
  if (!playlist || !Array.isArray(playlist.sources)) return [];
  return playlist.sources
    .filter((s) => (kindOf(s) === 'web' ? /^https?:\/\//i.test(s.page_url) : s.media && s.media.url && kindOf(s)))
    .map((s) => ({ source: s, kind: kindOf(s) }));
}

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([promise, new Promise((_, reject) => (t = setTimeout(() => reject(new Error(`${what} did not start within ${ms} ms`)), ms)))]).finally(
    () => clearTimeout(t),
  );
}

/**
 * Resolves once `el` (just given the `shown` class) covers what is below it: its fade has ended and
 * its image is decoded for painting (Chromium may drop the decoded pixels of an image kept at opacity
 * 0, and decode it again as it fades in: tearing the old item down before that showed black for up
 * to 0.65 s), then two frames later, so that frame has been painted. The fade's end is the
 * transition's own (getAnimations), so a fade that runs late or slow is still waited for; a timer
 * only where a browser lacks the Web Animations API.
 */
function covers(el) {
  const img = el.querySelector('img');
  const faded =
    typeof el.getAnimations === 'function'
      ? Promise.all(el.getAnimations().map((a) => a.finished.catch(() => undefined)))
      : new Promise((resolve) => {
          const t = setTimeout(resolve, FADE_MS + 50);
          el.addEventListener(
            'transitionend',
            () => {
              clearTimeout(t);
              resolve();
            },
            { once: true },
          );
        });
  const decoded = img ? img.decode().catch(() => undefined) : undefined;
  return Promise.all([faded, decoded]).then(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/** The size `el`'s content paints at in its zone (images and videos fitted with object-fit: contain). */
function paintedSize(el) {
  const box = el.getBoundingClientRect();
  const media = el.querySelector('img, video');
  const w = media ? media.naturalWidth || media.videoWidth : 0;
  const h = media ? media.naturalHeight || media.videoHeight : 0;
  if (!w || !h) return { w: box.width, h: box.height };
  const scale = Math.min(box.width / w, box.height / h);
  return { w: w * scale, h: h * scale };
}

/** Whether `upper` hides all of `lower` once painted (both centred in the same zone). */
function hidesAll(upper, lower) {
  const a = paintedSize(upper);
  const b = paintedSize(lower);
  return a.w + 0.5 >= b.w && a.h + 0.5 >= b.h;
}

function teardown(el) {
  const frame = el.querySelector('iframe');
  if (frame) frame.src = 'about:blank';
  const media = el.querySelector('video');
  if (media) {
    media.pause();
    media.removeAttribute('src');
    media.load();
  }
  el.remove();
}

export class Zone {
  /**
   * @param el the zone's element
   * @param playlist the manifest's playlist (or null)
   * @param ctx { onPlayed(play), onStarted(zone), onProblem(msg), volume(): 0..100, zoneId, scheduleId }
   */
  constructor(el, playlist, ctx) {
    this.el = el;
    this.playlist = playlist;
    this.ctx = ctx;
    this.items = playableItems(playlist);
    this.abort = new AbortController();
    this.current = null;
    this.below = null; // the item before the current one, kept below it (show)
    this.setAside = new Map();
    this.skipRecorded = new Map();
  }

  start() {
    void this.run().catch((e) => this.ctx.onProblem(`zone stopped: ${e && e.message}`));
  }

  stop() {
    this.abort.abort();
    if (this.current) this.finish(this.current, 'completed');
  }

  /** The item on glass now (for pings and screenshots). */
  playing() {
    return this.current;
  }

  async run() {
    const signal = this.abort.signal;
    let i = 0;
    let failuresInARow = 0;
    if (this.items.length === 0) return this.ctx.onStarted(this);
    while (!signal.aborted) {
      const item = this.items[i % this.items.length];
      i++;
      if (!validAt(item.source, serverNow())) {
        // Expired or not yet valid (expiry.js): never shown; with nothing valid left, the glass clears until an edge.
        if (!this.items.some((it) => validAt(it.source, serverNow()))) await this.idleUntilValid(signal);
        continue;
      }
      const aside = this.setAside.get(item.source.id);
      if (aside && aside > performance.now() && this.items.length > 1) continue;
      let next;
      try {
        next = await this.prepare(item, signal);
      } catch (e) {
        if (signal.aborted) return;
        this.ctx.onProblem(`skipped ${item.source.name || item.source.id}: ${e && e.message}`);
        this.setAside.set(item.source.id, performance.now() + SET_ASIDE_MS);
        this.skipped(item);
        if (++failuresInARow >= this.items.length) await until(performance.now() + 5000, signal);
        continue;
      }
      failuresInARow = 0;
      if (signal.aborted) return teardown(next.el);
      // Hold the current item until its time is up (a video without a set time: until it ends).
      if (this.current) await this.current.done;
      if (signal.aborted) return teardown(next.el);
      if (!validAt(next.item.source, serverNow())) {
        teardown(next.el); // it expired while the one before it showed
        continue;
      }
      this.show(next);
    }
  }

  /** Nothing is valid now: takes what shows off the glass (its play ends here) and waits for the next validity edge. */
  async idleUntilValid(signal) {
    if (this.current) {
      this.finish(this.current, this.current.status);
      teardown(this.current.el);
      this.current = null;
    }
    if (this.below) teardown(this.below);
    this.below = null;
    this.ctx.onStarted(this);
    await atServerTime(
      nextEdge(
        this.items.map((it) => it.source),
        serverNow(),
      ),
      signal,
    );
  }

  /** Builds the item's element at opacity 0 above the current one and waits until it can show at once. */
  async prepare(item, signal) {
    const wrap = document.createElement('div');
    wrap.className = 'item';
    if (item.kind === 'web') {
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', WEB_SANDBOX);
      frame.setAttribute('referrerpolicy', 'no-referrer');
      frame.setAttribute('allow', '');
      frame.setAttribute('scrolling', 'no');
      frame.title = item.source.name || 'web page';
      const loaded = new Promise((resolve) => frame.addEventListener('load', () => resolve(), { once: true }));
      frame.src = item.source.page_url;
      wrap.appendChild(frame);
      this.el.appendChild(wrap);
      try {
        await withTimeout(loaded, START_TIMEOUT_MS, 'web page');
      } catch (e) {
        teardown(wrap);
        throw e;
      }
      return { el: wrap, item };
    }
    const url = item.source.media.url;
    if (item.kind === 'image') {
      const img = document.createElement('img');
      img.alt = '';
      img.decoding = 'async';
      img.src = url;
      wrap.appendChild(img);
      this.el.appendChild(wrap);
      try {
        await withTimeout(img.decode(), START_TIMEOUT_MS, 'image');
      } catch (e) {
        wrap.remove();
        throw e;
      }
    } else {
      const video = document.createElement('video');
      video.muted = true;
      video.playsInline = true;
      video.setAttribute('playsinline', '');
      video.setAttribute('muted', '');
      video.preload = 'auto';
      video.src = url;
      wrap.appendChild(video);
      this.el.appendChild(wrap);
      try {
        await withTimeout(
          new Promise((resolve, reject) => {
            if (video.readyState >= 3) return resolve();
            video.addEventListener('canplay', () => resolve(), { once: true });
            video.addEventListener('error', () => reject(new Error(`video error ${video.error ? video.error.code : ''}`)), { once: true });
          }),
          START_TIMEOUT_MS,
          'video',
        );
      } catch (e) {
        teardown(wrap);
        throw e;
      }
    }
    if (signal.aborted) return { el: wrap, item };
    return { el: wrap, item };
  }

  async startVideo(video) {
    const volume = this.ctx.volume();
    video.muted = volume === 0 || this.ctx.autoplayBlocked();
    video.volume = Math.max(0, Math.min(1, volume / 100));
    const attempt = () => video.play();
    try {
      await attempt();
    } catch (e) {
      if (e && e.name === 'NotAllowedError') {
        // Autoplay with sound refused by the browser: play muted (the only reason to).
        this.ctx.setAutoplayBlocked();
        video.muted = true;
        await attempt();
      } else {
        // Transient (an interrupted load): once more, sound setting unchanged.
        await attempt();
      }
    }
    await withTimeout(
      new Promise((resolve) => (video.currentTime > 0 && !video.paused ? resolve() : video.addEventListener('playing', () => resolve(), { once: true }))),
      START_TIMEOUT_MS,
      'video playback',
    );
  }

  show(next) {
    const previous = this.current;
    const s = next.item.source;
    const video = next.el.querySelector('video');
    const startedMono = performance.now();
    const play = {
      el: next.el,
      item: next.item,
      startedMono,
      startedAt: serverNow(),
      done: null,
      status: 'completed',
    };
    // Fade in over the previous item; remove the previous only once this one covers it (painted).
    next.el.classList.add('shown');
    // Chromium may still not paint a large image for a while after covers() (8K ones left black gaps
    // of ~0.3 s under load): where the new item hides all of the previous one, the previous stays
    // below it (paused) and goes once the new one's successor covers it; otherwise (its edges would
    // show beside the new one) it goes once the new one covers it.
    const below = this.below;
    this.below = null;
    if (below) void covers(next.el).then(() => teardown(below));
    if (previous) {
      const prevVideo = previous.el.querySelector('video');
      if (hidesAll(next.el, previous.el)) {
        if (prevVideo) prevVideo.pause();
        this.below = previous.el;
      } else void covers(next.el).then(() => teardown(previous.el));
      this.finish(previous, previous.status);
    }
    this.current = play;
    // The stage retires the scene below once every zone's first item covers it.
    if (!previous) void covers(next.el).then(() => this.ctx.onStarted(this));
    const signal = this.abort.signal;
    const seconds =
      s.interval ||
      (next.item.kind === 'web' ? DEFAULT_WEB_SECONDS : next.item.kind === 'image' ? s.media.duration || DEFAULT_IMAGE_SECONDS : s.media.duration || 0);
    if (video) {
      play.done = this.startVideo(video)
        .then(() =>
          s.interval
            ? until(startedMono + s.interval * 1000, signal)
            : new Promise((resolve) => {
                if (video.ended) return resolve();
                video.addEventListener('ended', () => resolve(), { once: true });
                // A stalled video still ends: its length and a margin at the latest.
                if (seconds > 0) setTimeout(resolve, seconds * 1000 + 5000);
              }),
        )
        .catch((e) => {
          play.status = 'failed';
          this.setAside.set(s.id, performance.now() + SET_ASIDE_MS);
          this.ctx.onProblem(`video ${s.name || s.id} failed: ${e && e.message}`);
        });
    } else {
      play.done = until(startedMono + seconds * 1000, signal);
    }
    // Its time on glass ends at its valid_until at the latest (expiry.js), to the second.
    if (s.valid_until) play.done = Promise.race([play.done, atServerTime(Date.parse(s.valid_until), signal)]);
  }

  /** A play that left the glass: its proof of play. */
  finish(play, status) {
    if (play.finished) return;
    play.finished = true;
    const s = play.item.source;
    this.ctx.onPlayed({
      fileId: s.media ? s.media.id : s.id,
      type: play.item.kind,
      startedAt: play.startedAt,
      seconds: (performance.now() - play.startedMono) / 1000,
      status,
      zoneId: this.ctx.zoneId,
      playlistId: this.playlist ? this.playlist.id : null,
      scheduleId: this.ctx.scheduleId,
    });
  }

  /**
   * An item that never reached the glass (it did not load or start in time): recorded as skipped,
   * 0 s; at most once per SET_ASIDE_MS per item, so a lone broken item retried in a loop does not
   * flood the play logs.
   */
  skipped(item) {
    const s = item.source;
    const last = this.skipRecorded.get(s.id);
    if (last !== undefined && performance.now() - last < SET_ASIDE_MS) return;
    this.skipRecorded.set(s.id, performance.now());
    this.ctx.onPlayed({
      fileId: s.media ? s.media.id : s.id,
      type: item.kind,
      startedAt: serverNow(),
      seconds: 0,
      status: 'skipped',
      zoneId: this.ctx.zoneId,
      playlistId: this.playlist ? this.playlist.id : null,
      scheduleId: this.ctx.scheduleId,
    });
  }
}
