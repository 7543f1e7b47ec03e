// Pylon's web player: any browser at /play becomes a screen. Pairs when it has no key (or takes
// ?key= for scripted kiosks, kept in localStorage), plays the manifest's `now` and switches to
// `next` at `valid_until` by the server's clock, long-polls pings for live changes and commands,
// queues proof of play in IndexedDB, and leaves files and the manifest to the Service Worker
// (sw.entry.js) so it keeps playing offline.
import { PlayerApi, PLAYER_VERSION } from './api.js';
import { learn, offset, offsetKnown, serverNow, sleep } from './clock.js';
import { pair } from './pairing.js';
import { OverrideLayer } from './override.js';
import { PowerLayer } from './power.js';
import { jittered, PlaylogQueue } from './playlog-queue.js';
import { screenshot } from './screenshot.js';
import { Stage } from './stage.js';

const KEY_STORAGE = 'pylon.player.key';
const NAME_STORAGE = 'pylon.player.name';
const VOLUME_STORAGE = 'pylon.player.volume';
const PING_WAIT_SECONDS = 25;
/**
 * Pings after a failure: from the first one, a wait with full jitter (a fleet that lost its server
 * together does not return in step), growing to PING_RETRY_MAX_MS. Short enough that the offline
 * label clears within 5 s of the server's return; one small request per few seconds per screen.
 */
const PING_RETRY_FIRST_MS = 1000;
const PING_RETRY_MAX_MS = 3500;
const FLUSH_EVERY_MS = 10_000;
const QUIET_HOUR = 3;
const QUIET_RELOAD_AFTER_MS = 20 * 3600_000;
const $ = (id) => document.getElementById(id);
const bootedAt = performance.now();

const store = {
  get: (k) => {
    try {
      return localStorage.getItem(k);
    } catch {
      return null;
    }
  },
  set: (k, v) => {
    try {
      if (v === null) localStorage.removeItem(k);
      else localStorage.setItem(k, v);
    } catch {
      /* private mode: this page only */
    }
  },
};

function status(text) {
  const el = $('status');
  el.hidden = !text;
  el.textContent = text || '';
}

/** The key from ?key= (then stored and taken out of the address bar) or from localStorage. */
function initialKey() {
  const url = new URL(location.href);
  const given = url.searchParams.get('key');
  if (given) {
    store.set(KEY_STORAGE, given);
    url.searchParams.delete('key');
    history.replaceState(null, '', url.pathname + url.search);
  }
  return store.get(KEY_STORAGE);
}

function registerServiceWorker() {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('/play/sw.js', { scope: '/play/' }).catch((e) => status(`offline cache unavailable: ${e && e.message}`));
  const controlled = () => {
    if (navigator.serviceWorker.controller) document.body.dataset.sw = 'controlled';
  };
  controlled();
  navigator.serviceWorker.addEventListener('controllerchange', controlled);
  navigator.serviceWorker.addEventListener('message', (ev) => {
    if (ev.data && ev.data.type === 'cached') {
      document.body.dataset.cachedFiles = String(ev.data.files);
      document.body.dataset.cacheTotal = String(ev.data.total);
    }
  });
}

class Player {
  constructor(key) {
    this.api = new PlayerApi(key);
    this.queue = new PlaylogQueue(this.api, (m) => console.warn(m));
    this.manifest = null;
    this.etag = null;
    this.volume = Number(store.get(VOLUME_STORAGE) ?? 100);
    this.blocked = false;
    this.problems = [];
    this.playSeq = 0;
    this.created = [];
    // Play ids are unique per browser install: a random tag kept with the key.
    this.install = store.get('pylon.player.install') || Math.random().toString(36).slice(2, 10);
    store.set('pylon.player.install', this.install);
    this.switchTimer = null;
    const zoneCtx = {
      api: this.api,
      onPlayed: (p) => this.played(p),
      onProblem: (m) => {
        this.problems.push(m);
        if (this.problems.length > 20) this.problems.shift();
        console.warn(m);
      },
      volume: () => this.volume,
      screenName: () => store.get(NAME_STORAGE),
      autoplayBlocked: () => this.blocked,
      setAutoplayBlocked: () => (this.blocked = true),
    };
    this.stage = new Stage($('stage'), zoneCtx);
    // What the stage should show (the manifest's entry now); held back while an override covers it.
    this.entry = null;
    // An emergency override pauses the stage (no hidden plays, no proof of play under it) and hands it back after.
    this.override = new OverrideLayer($('override'), {
      ...zoneCtx,
      onChange: (covering) => (covering ? this.stage.stop() : this.show(this.entry)),
    });
    // The power schedule stops the stage while the display is off and hands it back at the on edge.
    this.power = new PowerLayer((off) => (off ? this.stage.stop() : this.show(this.entry)));
  }

  /** Shows an entry on the stage, unless an override covers the screen (then it shows once the override ends). */
  show(entry) {
    this.entry = entry;
    if (!this.override.covering() && !this.power.off()) this.stage.show(entry);
  }

  async start() {
    document.body.dataset.state = 'playing';
    await this.refreshManifest();
    void this.pingLoop();
    setInterval(() => void this.queue.flush().then(() => this.showCounts()), FLUSH_EVERY_MS);
    // Tabs that run for weeks degrade (leaks in media pipelines, fragmentation): reload softly once a
    // day at a quiet hour, after the play logs are sent; the page, manifest and files come from the cache.
    setInterval(() => {
      if (performance.now() - bootedAt > QUIET_RELOAD_AFTER_MS && new Date().getHours() === QUIET_HOUR) {
        void this.queue.flush().finally(() => location.reload());
      }
    }, 60_000);
  }

  showCounts() {
    void this.queue.pending().then((n) => {
      document.body.dataset.pendingPlays = String(n);
      document.body.dataset.sentPlays = String(this.queue.sent);
      document.body.dataset.playlogAttempts = String(this.queue.attempts);
    });
  }

  /** Fetches the manifest (304 when unchanged); offline, the Service Worker answers from its copy. */
  async refreshManifest(force) {
    let r;
    try {
      r = await this.api.manifest(force ? null : this.etag);
    } catch {
      return; // offline without a cached copy: keep what plays
    }
    if (r.status === 401) return this.forget();
    if (r.status !== 200) return;
    this.etag = r.etag;
    this.apply(r.body);
  }

  apply(manifest) {
    this.manifest = manifest;
    document.body.dataset.manifestVersion = manifest.version;
    clearTimeout(this.switchTimer);
    const until = manifest.valid_until ? Date.parse(manifest.valid_until) : null;
    // Before the stage is given its entry: a screen that starts at night never plays a first frame.
    this.power.apply(manifest.power || null);
    this.show(until !== null && serverNow() >= until && manifest.next ? manifest.next : manifest.now);
    this.override.apply(manifest.override || null);
    if (until !== null && manifest.next) {
      // Exactly on time by the server's clock, without waiting for a ping; then ask what follows.
      const wait = Math.max(0, until - serverNow());
      this.switchTimer = setTimeout(
        () => {
          this.show(manifest.next);
          void this.refreshManifest(true);
        },
        Math.min(wait, 2 ** 31 - 1),
      );
    }
  }

  /**
   * A play that left the glass (completed, failed while showing, or skipped before it started):
   * queued at once, sent with the next flush. Start and end are UTC instants by the server's clock
   * (the offset learnt from pings), and the offset itself goes with the record.
   */
  played(p) {
    const start = new Date(p.startedAt).toISOString();
    const record = {
      // Stable: device-local sequence, start instant and file; a retry resends the same id.
      id: `web-${this.install}-${start.replace(/[^0-9]/g, '')}-${(this.playSeq++ % 1e6).toString(36)}-${p.fileId.slice(0, 40)}`.slice(0, 100),
      timestamp: start,
      file_id: p.fileId,
      duration: Math.round(p.seconds * 1000) / 1000,
      type: p.type,
      playlist_id: p.playlistId,
      schedule_id: p.scheduleId || (this.manifest && this.manifest.now ? this.manifest.now.schedule_id : null),
      end_timestamp: new Date(p.startedAt + Math.max(0, p.seconds) * 1000).toISOString(),
      status: p.status,
      ...(offsetKnown() ? { clock_offset_ms: offset() } : {}),
      ...(p.zoneId ? { zone_id: String(p.zoneId).slice(0, 200) } : {}),
    };
    // The ids this page created (the newest few thousand): what a test or an operator can check against the store.
    this.created.push(record.id);
    if (this.created.length > 5000) this.created.shift();
    document.body.dataset.createdPlays = String(this.created.length);
    if (p.status !== 'completed') document.body.dataset.lastUnplayed = `${p.status}:${p.fileId}`;
    void this.queue.add(record).then(() => this.showCounts());
  }

  pingBody() {
    const playing = [...this.stage.playing(), ...[this.override.playing()].filter(Boolean)].map(
      (p) => p.item.source.name || (p.item.source.media ? p.item.source.media.id : p.item.source.id),
    );
    const mem = performance.memory;
    const meta = {
      user_agent: navigator.userAgent.slice(0, 1000),
      screen: `${window.screen.width}x${window.screen.height}`,
      viewport: `${window.innerWidth}x${window.innerHeight}`,
      playing: playing.join(' | ').slice(0, 1000),
      manifest_version: this.manifest ? this.manifest.version : null,
      clock_offset_ms: String(Math.round(serverNow() - Date.now())),
      ...(mem ? { js_heap_bytes: String(mem.usedJSHeapSize) } : {}),
      ...(navigator.deviceMemory ? { device_memory_gb: String(navigator.deviceMemory) } : {}),
      ...(this.problems.length ? { last_problem: this.problems[this.problems.length - 1].slice(0, 1000) } : {}),
    };
    return {
      type: 'web',
      player_version: PLAYER_VERSION,
      os_version: navigator.platform ? navigator.platform.slice(0, 200) : null,
      uptime: Math.round((performance.now() - bootedAt) / 1000),
      current_schedule: this.manifest && this.manifest.now.schedule_name ? this.manifest.now.schedule_name.slice(0, 500) : null,
      ...(mem && mem.jsHeapSizeLimit ? { memory_usage: Math.min(100, Math.round((mem.usedJSHeapSize / mem.jsHeapSizeLimit) * 1000) / 10) } : {}),
      meta,
    };
  }

  async pingLoop() {
    let backoff = PING_RETRY_FIRST_MS;
    let wait = 0; // the first ping answers at once: the clock offset, queued commands
    const retry = async (floorMs = 0) => {
      await sleep(Math.max(jittered(backoff), floorMs));
      backoff = Math.min(backoff * 2, PING_RETRY_MAX_MS);
    };
    for (;;) {
      let r;
      try {
        // After a failure the ping does not wait on the server: its answer clears the label at once.
        r = await this.api.ping(this.pingBody(), backoff === PING_RETRY_FIRST_MS ? wait : 0, this.stage.tableIds());
      } catch {
        status('Offline: playing from cache');
        await retry();
        continue;
      }
      if (r.status === 401) return this.forget();
      if (r.status !== 200) {
        // Retry-After (a 429 past the screen's ping limit, or a 503) is the floor of the delay.
        if (r.status !== 429) status('Offline: playing from cache');
        await retry(r.retryAfterMs || 0);
        continue;
      }
      status('');
      backoff = PING_RETRY_FIRST_MS;
      wait = PING_WAIT_SECONDS;
      learn(r.body.server_time, Date.now());
      this.rename(r.body.device_name);
      if (r.body.manifest && r.body.manifest.version) {
        // The new manifest came with the answer: applied at once, kept as a fetched one is.
        this.etag = r.body.manifest_etag || null;
        this.apply(r.body.manifest);
        this.api.keepInline(r.body.manifest, r.body.manifest_etag);
      } else if (r.body.manifest_version && (!this.manifest || r.body.manifest_version !== this.manifest.version)) await this.refreshManifest();
      // A table the screen shows may have changed (that ends the wait too): conditional re-reads.
      this.stage.refreshTables();
      for (const c of r.body.commands || []) await this.run(c);
      void this.queue.flush().then(() => this.showCounts());
    }
  }

  /** The screen's name as the operator set it (each ping answers it): kept, and shown at once on the idle card. */
  rename(name) {
    if (typeof name !== 'string' || !name || name === store.get(NAME_STORAGE)) return;
    store.set(NAME_STORAGE, name);
    const shown = document.querySelector('#idle .idle-name');
    if (shown) shown.textContent = name;
  }

  /** Runs one command and acknowledges it (reboot acknowledges first: the page goes away). */
  async run(c) {
    const ok = () => this.api.ack(c.id, 'acknowledged');
    const fail = (m) => this.api.ack(c.id, 'failed', m);
    try {
      switch (c.command) {
        case 'reboot':
        case 'restart':
          await ok();
          await this.queue.flush().catch(() => undefined);
          location.reload();
          return;
        case 'refresh':
        case 'update':
          await this.refreshManifest(true);
          return ok();
        case 'clear_cache':
          if (navigator.serviceWorker && navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage({ type: 'clear' });
          await this.refreshManifest(true);
          return ok();
        case 'volume': {
          const v = Number(c.arg);
          if (!Number.isInteger(v) || v < 0 || v > 100) return fail('volume must be 0..100');
          this.volume = v;
          store.set(VOLUME_STORAGE, String(v));
          for (const video of document.querySelectorAll('video')) {
            video.volume = v / 100;
            video.muted = v === 0 || this.blocked;
          }
          return ok();
        }
        case 'display_off':
          $('blackout').hidden = false;
          return ok();
        case 'display_on':
          $('blackout').hidden = true;
          return ok();
        case 'identify': {
          const el = $('identify');
          el.textContent = store.get(NAME_STORAGE) || 'Pylon screen';
          el.hidden = false;
          setTimeout(() => (el.hidden = true), 15_000);
          return ok();
        }
        case 'screenshot': {
          const blob = await screenshot(this.stage.playing());
          const s = await this.api.snap(blob);
          return s >= 200 && s < 300 ? ok() : fail(`upload answered ${s}`);
        }
        default:
          return fail(`the web player does not support '${c.command}'`);
      }
    } catch (e) {
      return fail(e && e.message ? e.message : 'failed');
    }
  }

  forget() {
    // The key no longer names a device (deleted): pair again.
    store.set(KEY_STORAGE, null);
    location.reload();
  }
}

function showPairing({ code, message }) {
  document.body.dataset.state = 'pairing';
  $('pairing').hidden = false;
  if (code) $('pairing-code').textContent = code;
  document.body.dataset.pairingCode = code || '';
  $('pairing-details').textContent = message || '';
}

async function main() {
  registerServiceWorker();
  let key = initialKey();
  if (!key) {
    const paired = await pair(showPairing);
    key = paired.key;
    store.set(KEY_STORAGE, key);
    store.set(NAME_STORAGE, paired.name);
    $('pairing').hidden = true;
  }
  window.pylonPlayer = new Player(key);
  await window.pylonPlayer.start();
}

void main();
