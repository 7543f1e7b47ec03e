// The stage: what the manifest's entry shows, laid out on the screen. A playlist fills the screen;
// a template keeps its aspect ratio (letterboxed), is turned by its orientation (0 landscape,
// 1 portrait, 2 landscape reversed, 3 portrait reversed) and places each module as a zone at its
// left/top/width/height in template pixels (a module with a data table and no playlist shows the
// table's rows: a menu board). A new scene is built over the old one and stays transparent (no
// black background of its own) while each of its zones fades its first item in, decoded, over the
// old picture; once every zone's first item covers its zone, painted, the scene becomes opaque and
// the scenes below it go. So a schedule change shows no black frame (issue 35, item 8).
import { TableZone } from './table-zone.js';
import { Zone } from './zone.js';

const SWITCH_TIMEOUT_MS = 10_000;
const IDLE_CLOCK_MS = 15_000;

/**
 * What a paired screen with nothing scheduled shows: a calm card saying so (its name, the time, the
 * server it reaches), so it is not mistaken for a broken black screen.
 */
function idleCard(name) {
  const card = document.createElement('section');
  card.className = 'idle';
  card.id = 'idle';
  const line = (cls, text) => {
    const p = document.createElement('p');
    p.className = cls;
    p.textContent = text;
    card.appendChild(p);
    return p;
  };
  line('idle-name', name || 'This screen');
  line('idle-what', 'Nothing scheduled');
  const clock = line('idle-time', '');
  line('idle-server', `Connected to ${location.host}`);
  const tick = () => {
    if (!card.isConnected && clock.textContent) return clearInterval(timer);
    clock.textContent = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  };
  const timer = setInterval(tick, IDLE_CLOCK_MS);
  tick();
  return card;
}

/** The content's identity for "is this the same thing": ids, order, files and durations. */
export const contentKey = (entry) => (entry && entry.content ? JSON.stringify(entry.content, (k, v) => (k === 'url' ? undefined : v)) : 'nothing');

export class Stage {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.scene = null;
    this.key = null;
    /** Every scene on the stage, oldest (lowest) first: the last is `scene`, those before it are going. */
    this.scenes = [];
  }

  /** Shows the entry (unless it is what shows already). */
  show(entry) {
    const key = contentKey(entry);
    if (key === this.key) return;
    this.key = key;
    const scene = this.build(entry);
    this.scene = scene;
    this.scenes.push(scene);
    let pending = scene.zones.length;
    // A zone whose first item never starts (all of it broken) does not keep the old scene forever.
    const timer = setTimeout(() => this.settle(scene), SWITCH_TIMEOUT_MS);
    scene.onZoneStarted = () => {
      if (--pending === 0) {
        clearTimeout(timer);
        // covers() saw the items painted; a margin more, as zone.js keeps an item below its successor
        // (Chromium may paint a large image late once it is shown).
        setTimeout(() => this.settle(scene), 500);
      }
    };
    if (pending === 0) {
      // Nothing to wait for (the idle card, opaque at once).
      clearTimeout(timer);
      this.settle(scene);
    }
    for (const z of scene.zones) z.start();
  }

  /** `scene` covers the screen: it takes its own background and every scene below it goes. */
  settle(scene) {
    const at = this.scenes.indexOf(scene);
    // Gone already: a scene put over it later covered the screen first.
    if (at < 0) return;
    for (const old of this.scenes.splice(0, at)) {
      for (const z of old.zones) z.stop();
      old.el.remove();
    }
    scene.el.classList.remove('incoming');
  }

  /** Ids of the data tables the scene shows (menu boards). */
  tableIds() {
    return this.scene ? this.scene.zones.filter((z) => z.tableId).map((z) => z.tableId) : [];
  }

  /** Re-reads every menu board's rows (conditional reads: unchanged tables cost a 304). */
  refreshTables() {
    if (this.scene) for (const z of this.scene.zones) if (z.tableId) void z.refresh();
  }

  /** What plays in every zone now. */
  playing() {
    return this.scene ? this.scene.zones.map((z) => z.playing()).filter(Boolean) : [];
  }

  stop() {
    for (const scene of this.scenes.splice(0)) {
      for (const z of scene.zones) z.stop();
      scene.el.remove();
    }
    this.scene = null;
    this.key = null;
  }

  build(entry) {
    const el = document.createElement('div');
    // Transparent until settle(): the scene below shows through wherever its items are not yet in.
    el.className = 'scene incoming';
    this.root.appendChild(el);
    const scene = { el, zones: [], onZoneStarted: () => undefined, entry };
    const content = entry && entry.content;
    const zoneCtx = (zoneId) => ({
      ...this.ctx,
      zoneId,
      scheduleId: entry ? entry.schedule_id : null,
      onStarted: () => scene.onZoneStarted(),
    });
    const W = window.innerWidth;
    const H = window.innerHeight;
    if (!content) {
      Object.assign(el.style, { left: '0', top: '0', width: `${W}px`, height: `${H}px` });
      el.appendChild(idleCard(this.ctx.screenName ? this.ctx.screenName() : null));
      document.body.dataset.idle = 'true';
      return scene;
    }
    delete document.body.dataset.idle;
    if (content.type === 'playlist') {
      Object.assign(el.style, { left: '0', top: '0', width: '100%', height: '100%' });
      const z = document.createElement('div');
      z.className = 'zone';
      Object.assign(z.style, { left: '0', top: '0', width: '100%', height: '100%' });
      el.appendChild(z);
      scene.zones.push(new Zone(z, content, zoneCtx(null)));
      return scene;
    }
    // A template: its own pixel space, fitted into the (possibly turned) screen.
    const tw = content.width || 1920;
    const th = content.height || 1080;
    const turned = content.orientation === 1 || content.orientation === 3;
    const angle = [0, 90, 180, 270][content.orientation || 0] || 0;
    const sw = turned ? H : W;
    const sh = turned ? W : H;
    const scale = Math.min(sw / tw, sh / th);
    Object.assign(el.style, {
      width: `${tw}px`,
      height: `${th}px`,
      left: `${(W - tw) / 2}px`,
      top: `${(H - th) / 2}px`,
      transform: `rotate(${angle}deg) scale(${scale})`,
      transformOrigin: '50% 50%',
    });
    for (const m of content.modules || []) {
      const z = document.createElement('div');
      z.className = 'zone';
      z.dataset.module = m.name || m.id;
      Object.assign(z.style, { left: `${m.left}px`, top: `${m.top}px`, width: `${m.width}px`, height: `${m.height}px` });
      el.appendChild(z);
      scene.zones.push(m.data_table_id && !m.playlist ? new TableZone(z, m.data_table_id, zoneCtx(m.id)) : new Zone(z, m.playlist, zoneCtx(m.id)));
    }
    return scene;
  }
}
