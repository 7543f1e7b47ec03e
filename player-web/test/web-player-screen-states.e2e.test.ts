/**
 * What a screen shows between and around content (issue 35), in headless Chromium against the
 * all-in-one run as a process like `npm start`: a paired screen with nothing scheduled shows a calm
 * idle card (not black); 50 image transitions with the cross-fade slowed under the test's control
 * (see FADE_RATE) sampled frame by frame (CDP screencast) never show the black background, nor do 8
 * transitions of 8K images (see IMAGE_SIZE), nor five schedule changes (a new scene replacing the
 * old: playlists, a four-zone template, nothing scheduled) with the fades slowed alike; with the
 * server unreachable the offline label is legible (a TV's 3 % of the height at least, opaque) and clears within 5 s of the server's return, while play-log
 * sends back off; a stopping server (pings answered at once, play logs refused) sees no burst of sends; the
 * operator's /screens page shows no broken image where a screen has no screenshot, and its states
 * legibly. The idle card names the screen as the operator named it.
 * Waits poll for conditions with generous limits (a busy 2-core machine).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { browserTest as chromiumTest, CHROMIUM, haveChromium } from '../../gateway/test/chromium.js';
import { startAllInOneProcess, type Processes } from '../../gateway/test/processes.js';
import { apiClient, png, SCREEN_ARGS, until } from './support/player-browser.js';

const KEY = 'screen-states-key-0123456789abcdef';
/**
 * The pace of the page's CSS transitions while the deterministic transitions are sampled (CDP
 * Animation.setPlaybackRate; the player's timers keep their pace): the 400 ms cross-fade takes 1 s, so
 * each new item covers the one before late, as an 8K image Chromium decodes again as it fades in does on
 * a loaded machine, but on any machine. The player must keep the previous item until the new one covers
 * it: the old player tore it down a fixed 500 ms after the swap, over the new one at half opacity, and
 * the black background showed through in every transition (issue 35, item 8). At 0.4 the current
 * player has ~0.5 s to spare: the item below goes once its successor's successor covers it (zone.js).
 */
const FADE_RATE = 0.4;
/** Transitions judged at FADE_RATE, as issue 35 asks (one a second: ~50 s). */
const TRANSITIONS = 50;
/**
 * The 8K images' size, as a designer exports them. Chromium paints an image that large
 * late once it starts to fade in (it decodes it again as it is shown), so the old player, which tore
 * the previous item down a fixed 500 ms after the swap, showed black between items (issue 35, item 8):
 * 65 black frames of 539 in one run on a loaded 2-core machine, 30 to 49 in earlier ones. With 1080p,
 * 4K (3840x2160) or 6K (5760x3240) images, or 1080p with the page's CPU throttled 6x (CDP), the old
 * player showed none there, so those would not prove the fix. PYLON_TEST_IMAGE=WxH picks another
 * size for a quicker local run (which then proves nothing about black frames).
 */
/**
 * 8K transitions judged: 8, real images at their real pace beside the deterministic case (FADE_RATE),
 * which proves the fix on any machine. Under load (average 20-25 on 2 cores) the old player showed
 * black in 12 to 18 gaps of 50 with 8K images; on an idle machine it showed none in 25, also with the
 * page's CPU throttled 4x (CDP throttles the main thread, not the raster threads that decode).
 */
const LARGE_TRANSITIONS = 8;
const IMAGE_SIZE = imageSize(process.env.PYLON_TEST_IMAGE ?? '7680x4320');
function imageSize(text: string): [number, number] {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(text);
  if (!m) throw new Error(`PYLON_TEST_IMAGE must be WIDTHxHEIGHT in pixels (e.g. 1920x1080), not ${JSON.stringify(text)}`);
  return [Number(m[1]), Number(m[2])];
}
const browserTest = chromiumTest('the screen states test');

let dir: string;
let procs: Processes;
let baseUrl: string;
let context: BrowserContext;
let screen: Page;
let helper: Page;
let device: { id: string; registration_key: string };
/** The four transition images (bright colours: a dark sample is a black frame). */
const COLOURS: [number, number, number][] = [
  [230, 30, 30],
  [30, 200, 60],
  [40, 90, 230],
  [240, 220, 40],
];
let images: Buffer[];

const { gql, rest } = apiClient(() => baseUrl, KEY);
const data = async (name: string) => (await screen.evaluate(`document.body.dataset[${JSON.stringify(name)}] || ''`)) as string;

beforeAll(async () => {
  if (!haveChromium) return;
  // Made before any request: an 8K PNG takes seconds of this thread to deflate, and a kept-alive
  // socket the server closed meanwhile would fail the next request ('other side closed').
  images = COLOURS.map((rgb) => png(rgb, ...IMAGE_SIZE));
  ({ dir, procs, baseUrl } = await startAllInOneProcess('screen-states', KEY, { SIGNAGE_SIMULATOR: 'false' }, 90_000));
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: SCREEN_ARGS,
    viewport: { width: 640, height: 360 },
  });
  helper = await context.newPage();
  // The demo schedules, seeded in the background once the server listens, cover every screen of the
  // account made before them: this screen is made after them, so only the tests' schedules reach it.
  await until('the demo schedules', async () => (await gql('{ scheduleCount(tag: ["demo"]) }')).scheduleCount >= 2, 120_000, 250);
  const created = await rest('POST', '/devices', { name: 'Hall screen', timezone: 'UTC' });
  if (created.status !== 201) throw new Error(`device: ${created.status} ${JSON.stringify(created.body)}`);
  device = created.body;
  // The screen, opened here so each test can run alone (jest -t).
  screen = await context.newPage();
  await screen.goto(`${baseUrl}/play?key=${encodeURIComponent(device.registration_key)}`);
}, 180_000);

afterAll(async () => {
  // The browser and the server stop together, then their files go.
  await Promise.all([context?.close(), procs?.stopAll()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

browserTest(
  'a paired screen with nothing scheduled shows a calm idle card: nothing scheduled, the time, the server it reaches',
  async () => {
    await until('the idle card', () => data('idle'), 60_000);
    const card = screen.locator('#idle');
    await card.waitFor({ state: 'visible', timeout: 10_000 });
    const text = await card.innerText();
    // Its name as the operator set it, though opened with ?key= (no pairing told it): the ping answers it.
    await until("the screen's name on the card", async () => (await card.locator('.idle-name').innerText()) === 'Hall screen', 60_000);
    expect(text).toContain('Nothing scheduled');
    expect(text).toContain(`Connected to ${new URL(baseUrl).host}`);
    expect(text).toMatch(/\d{1,2}[:.]\d{2}/);
    // Not black: the card's background, as painted.
    const shot = await screen.screenshot();
    const [bg] = (await pixels([shot.toString('base64')], [[0.05, 0.05]]))[0]!;
    expect(Math.max(...bg!)).toBeGreaterThan(12);
  },
  120_000,
);

type Rgb = [number, number, number];
/**
 * Colours of base64 PNG or JPEG images at relative points, decoded by the browser in the helper
 * page, 40 images per call.
 */
async function pixels(images: string[], points: [number, number][], type = 'image/png'): Promise<Rgb[][]> {
  const out: Rgb[][] = [];
  for (let i = 0; i < images.length; i += 40) {
    // A string, as the other browser tests do: the test's types have no DOM.
    const batch = (await helper.evaluate(`Promise.all(${JSON.stringify(images.slice(i, i + 40))}.map(async (data) => {
      const img = new Image();
      img.src = 'data:${type};base64,' + data;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth; c.height = img.naturalHeight;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return ${JSON.stringify(points)}.map(([x, y]) => Array.from(g.getImageData(Math.floor(x * (c.width - 1)), Math.floor(y * (c.height - 1)), 1, 1).data.slice(0, 3)));
    }))`)) as Rgb[][];
    out.push(...batch);
  }
  return out;
}

/** Points judged in each frame: a 5 x 9 grid over the screen. */
const GRID: [number, number][] = [];
for (const y of [0.1, 0.3, 0.5, 0.7, 0.9]) for (const x of [0.05, 0.15, 0.25, 0.35, 0.5, 0.65, 0.75, 0.85, 0.95]) GRID.push([x, y]);

/** Dark: a point where none of the colours shows (every channel under 60). */
const dark = (p: Rgb) => Math.max(...p) < 60;
/**
 * Whether `p` is one of the colours or a cross-fade of two of them (within `tolerance` per unit of
 * distance): anything else lets the black background through, dimming the picture toward black.
 */
function blendOfColours(p: Rgb, tolerance: number): boolean {
  for (const a of COLOURS)
    for (const b of COLOURS) {
      const d = a.map((v, k) => b[k]! - v);
      const len2 = d.reduce((s, v) => s + v * v, 0);
      const t = len2 ? Math.max(0, Math.min(1, d.reduce((s, v, k) => s + v * (p[k]! - a[k]!), 0) / len2)) : 0;
      if (Math.hypot(...a.map((v, k) => v + t * d[k]! - p[k]!)) <= tolerance) return true;
    }
  return false;
}

/** A new playlist of `pngs` (uploaded as new files), one second each; its id. */
async function playlistOf(name: string, pngs: Buffer[]): Promise<string> {
  const group = (await rest('POST', '/media/groups', { name })).body.id;
  const playlist = (await gql('mutation($n: String!) { createPlaylist(input: { name: $n }) { playlist { id } } }', { n: name })).createPlaylist.playlist.id;
  for (const [i, image] of pngs.entries()) {
    const r = await rest('POST', `/media/${group}/c${i}.png?name=${encodeURIComponent(`${name} ${i}`)}`, image, 'application/octet-stream');
    expect(r.status).toBe(201);
    await gql('mutation($p: ID!, $f: ID!) { addPlaylistSource(input: { playlistId: $p, fileId: $f, interval: 1 }) { success } }', {
      p: playlist,
      f: r.body.id,
    });
  }
  return playlist;
}

let scheduleId: string | undefined;
/**
 * Points the screen's one schedule at `content` (updated in place: one manifest change, no empty one
 * between), or deletes it (`null`: nothing scheduled).
 */
async function scheduleOnScreen(name: string, content: { playlistId: string } | { templateId: string } | null): Promise<void> {
  if (!content) {
    if (scheduleId) expect((await gql('mutation($id: ID!) { deleteSchedule(id: $id) { success } }', { id: scheduleId })).deleteSchedule.success).toBe(true);
    scheduleId = undefined;
    return;
  }
  const input = { name, type: 'templateId' in content ? 'TEMPLATE' : 'PLAYLIST', ...content, deviceIds: [device.id], priority: 'HIGHEST' };
  if (scheduleId) {
    const r = await gql('mutation($id: ID!, $i: ScheduleInput!) { updateSchedule(id: $id, input: $i) { success error } }', { id: scheduleId, i: input });
    expect(r.updateSchedule).toEqual({ success: true, error: null });
    return;
  }
  const made = await gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error schedule { id } } }', { i: input });
  expect(made.createSchedule.success).toBe(true);
  scheduleId = made.createSchedule.schedule.id;
}

/** Puts `pngs` on the screen as a playlist (one second each), replacing the schedule before; resolves once the screen plays it, to the playlist's id. */
async function playOnScreen(name: string, pngs: Buffer[]): Promise<string> {
  const version = await data('manifestVersion');
  const images = `[...document.querySelectorAll('.scene img')].map((i) => i.src)`;
  const before = (await screen.evaluate(images)) as string[];
  const playlist = await playlistOf(name, pngs);
  await scheduleOnScreen(name, { playlistId: playlist });
  await until(`${name} in the screen's manifest`, async () => (await data('manifestVersion')) !== version, 60_000);
  // On screen: one scene left (the one before retired), showing none of the images before.
  await until(
    `${name} on screen`,
    async () => {
      const now = (await screen.evaluate(images)) as string[];
      return (await screen.evaluate(`document.querySelectorAll('.scene').length`)) === 1 && now.length > 0 && !now.some((src) => before.includes(src));
    },
    120_000,
  );
  return playlist;
}

/**
 * Every frame Chromium produces while `during` runs, as it produces them (CDP screencast, `format`,
 * at most 320 px wide), from the index `during` answers (it is given the frames so far). `pace`: the
 * page's CSS transitions' playback rate meanwhile (CDP Animation domain).
 */
async function recording(format: 'png' | 'jpeg', pace: number, during: (frames: string[]) => Promise<number>): Promise<string[]> {
  const cdp = await context.newCDPSession(screen);
  try {
    if (pace !== 1) {
      await cdp.send('Animation.enable');
      await cdp.send('Animation.setPlaybackRate', { playbackRate: pace });
    }
    const frames: string[] = [];
    cdp.on('Page.screencastFrame', (f: { data: string; sessionId: number }) => {
      frames.push(f.data);
      void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
    });
    await cdp.send('Page.startScreencast', { format, quality: 60, maxWidth: 320, maxHeight: 320, everyNthFrame: 1 });
    const from = await during(frames);
    await cdp.send('Page.stopScreencast');
    return frames.slice(from);
  } finally {
    // Back to the page's own pace for the tests after this one (detaching alone may leave it set).
    if (pace !== 1) await cdp.send('Animation.setPlaybackRate', { playbackRate: 1 }).catch(() => undefined);
    await cdp.detach().catch(() => undefined);
  }
}

/**
 * The frames from the first transition after the screencast started until `transitions` more have
 * happened (each counted as the play it ends). The screencast's own first frames can be dark after a
 * first one that is not (frames 1-5 of 1,122 in two of five runs on a loaded machine, never later), a
 * capture artefact, not the player: so they are left out.
 */
async function screencast(transitions: number, limitMs: number, format: 'png' | 'jpeg', pace = 1): Promise<{ frames: string[]; seconds: number }> {
  let started = 0;
  const frames = await recording(format, pace, async (sofar) => {
    const before = Number(await data('createdPlays'));
    await until('a first transition', async () => Number(await data('createdPlays')) >= before + 1, 60_000, 50);
    const from = sofar.length;
    started = Date.now();
    await until(`${transitions} transitions`, async () => Number(await data('createdPlays')) >= before + transitions + 1, limitMs, 250);
    return from;
  });
  return { frames, seconds: (Date.now() - started) / 1000 };
}

browserTest(
  `${TRANSITIONS} image transitions, the cross-fade slowed ${1 / FADE_RATE}x: every frame shows the images or their cross-fade, never the black background`,
  async () => {
    await playOnScreen(
      'Slow fades',
      COLOURS.map((rgb) => png(rgb, 640, 360)),
    );
    const { frames, seconds } = await screencast(TRANSITIONS, 240_000, 'png', FADE_RATE);
    // Judged from the first frame showing an image (a frame before may predate one).
    const samples = await pixels(frames, GRID);
    const first = samples.findIndex((px) => px.every((p) => blendOfColours(p, 24)));
    const judged = samples.slice(first);
    const through = judged.flatMap((px, i) => (px.every((p) => blendOfColours(p, 24)) ? [] : [i]));
    const black = judged.flatMap((px, i) => (px.some(dark) ? [i] : []));
    const gaps = through.filter((f, i) => through[i - 1] !== f - 1).length;
    console.log(
      `slowed fades: ${judged.length} frames in ${seconds.toFixed(1)} s; background through in ${through.length} (${gaps} gaps), black in ${black.length}`,
    );
    // At ~1 s a fade, frames come all the time (tens a second): far more than one per transition.
    expect(first).toBeGreaterThanOrEqual(0);
    expect(judged.length).toBeGreaterThan(5 * TRANSITIONS);
    expect({ frames: judged.length, through, black }).toEqual({ frames: judged.length, through: [], black: [] });
  },
  420_000,
);

/**
 * A point with black in it: every colour the screen should show (the four images, the idle card's
 * background #10151f, the darkest at a channel sum of 68, and its text) and every blend of them sums
 * to 68 at least; the black background of a scene or a zone showing through takes a point below.
 */
const blackIn = (p: Rgb) => p[0] + p[1] + p[2] < 50;

browserTest(
  'schedule changes (playlist to playlist, to a four-zone template, to nothing scheduled, to a playlist, to the template) sampled frame by frame across each switch, the fades slowed: no black frame',
  async () => {
    const small = COLOURS.map((rgb) => png(rgb, 640, 360));
    const other = await playOnScreen('Switch from', [small[0]!, small[1]!]);
    // Everything published before the screencast starts: each switch is then one schedule change.
    const playlistId = await playlistOf('Switch to', [small[2]!, small[3]!]);
    // A 2 x 2 template of 16:9 zones (the images fill them), each zone's playlist starting on another colour.
    const quarter = (name: string, left: number, top: number, p: string) => ({ name, left, top, width: 960, height: 540, playlistId: p });
    const made = await gql(
      'mutation($m: [TemplateModuleInput!]) { createTemplate(input: { name: "Quarters", width: 1920, height: 1080, modules: $m }) { success error template { id } } }',
      { m: [quarter('a', 0, 0, playlistId), quarter('b', 960, 0, other), quarter('c', 0, 540, other), quarter('d', 960, 540, playlistId)] },
    );
    expect(made.createTemplate.success).toBe(true);
    const templateId = made.createTemplate.template.id as string;
    const switches: [string, { playlistId: string } | { templateId: string } | null][] = [
      ['another playlist', { playlistId }],
      ['a four-zone template', { templateId }],
      ['nothing scheduled', null],
      ['a playlist', { playlistId: other }],
      ['the template again', { templateId }],
    ];
    /** Where each switch starts among the judged frames. */
    const marks: number[] = [];
    const frames = await recording('png', FADE_RATE, async (sofar) => {
      // From a first transition on: the screencast's own first frames can be dark (see screencast()).
      const before = Number(await data('createdPlays'));
      await until('a first transition', async () => Number(await data('createdPlays')) >= before + 1, 60_000, 50);
      const start = sofar.length;
      for (const [what, content] of switches) {
        const version = await data('manifestVersion');
        marks.push(sofar.length - start);
        await scheduleOnScreen(`Switch to ${what}`, content);
        // Switched: the new manifest applied (its scene built at once) and the scene before retired.
        await until(
          `${what} on screen`,
          async () =>
            (await data('manifestVersion')) !== version &&
            (await screen.evaluate(`document.querySelectorAll('.scene').length`)) === 1 &&
            (content !== null || (await data('idle')) === 'true'),
          60_000,
          50,
        );
      }
      return start;
    });
    const samples = await pixels(frames, GRID);
    const black = samples.flatMap((px, i) => (px.some(blackIn) ? [i] : []));
    const perSwitch = switches.map(([what], k) => `${what}: ${black.filter((i) => i >= marks[k]! && i < (marks[k + 1] ?? Infinity)).length}`);
    console.log(`schedule changes: ${frames.length} frames, black in ${black.length} (${perSwitch.join(', ')})`);
    // Slowed, each switch's fade gives tens of frames (75 to 159 in all here, at load averages of 20 to 35).
    expect(frames.length).toBeGreaterThan(5 * switches.length);
    expect({ frames: frames.length, black }).toEqual({ frames: frames.length, black: [] });
  },
  240_000,
);

browserTest(
  `${LARGE_TRANSITIONS} transitions of ${IMAGE_SIZE.join('x')} images sampled frame by frame: no black frame`,
  async () => {
    await playOnScreen('Large images', images);
    // 8K images: 50 transitions took 240 s on a 2-core machine at load 24 (the limit leaves room for worse).
    const { frames, seconds } = await screencast(LARGE_TRANSITIONS, 300_000, 'jpeg');
    expect(frames.length).toBeGreaterThan(10);
    const samples = await pixels(frames, GRID, 'image/jpeg');
    // Judged from the first frame showing an image (a frame before may predate one).
    const first = samples.findIndex((px) => !px.some(dark));
    const black = samples.slice(first).flatMap((px, i) => (px.some(dark) ? [i] : []));
    console.log(`large images: ${samples.length - first} frames in ${seconds.toFixed(1)} s, black in ${black.length}`);
    expect(first).toBeGreaterThanOrEqual(0);
    expect({ frames: samples.length, black }).toEqual({ frames: samples.length, black: [] });
  },
  480_000,
);

browserTest(
  'server unreachable: a legible offline label, play logs sent with back-off; back again, the label clears within 5 s',
  async () => {
    const attempts: number[] = [];
    let down = true;
    await screen.route('**/player/**', (route) => {
      if (route.request().url().includes('/playlogs')) attempts.push(Date.now());
      return down ? route.abort('connectionrefused') : route.fallback();
    });
    await until('the offline label', async () => (await screen.locator('#status').isVisible()) && (await screen.locator('#status').innerText()), 30_000);
    const style = (await screen.evaluate(`(() => {
      const s = getComputedStyle(document.getElementById('status'));
      return { fontSize: parseFloat(s.fontSize), opacity: Number(s.opacity), color: s.color, background: s.backgroundColor, height: window.innerHeight };
    })()`)) as { fontSize: number; opacity: number; color: string; background: string; height: number };
    // Legible on a TV across a room: at least 3 % of the screen's height, fully opaque, on a solid background
    // (checked after the timings below, so a run shows each defect).
    const legible = {
      big: style.fontSize >= 0.03 * style.height,
      opaque: style.opacity === 1,
      solid: !/rgba\(0, 0, 0, 0\)|transparent/.test(style.background),
    };
    // Down for 20 s while plays keep coming (one a second): sends back off from the first failure.
    const from = Date.now();
    await new Promise((r) => setTimeout(r, 20_000));
    const during = attempts.filter((t) => t >= from);
    down = false;
    const back = Date.now();
    await until('the label to clear', async () => !(await screen.locator('#status').isVisible()), 10_000, 50);
    const cleared = Date.now() - back;
    await screen.unroute('**/player/**');
    expect({ sendsWhileDown: during.length <= 6, clearedWithin5s: cleared < 5000, ...legible }).toEqual({
      sendsWhileDown: true,
      clearedWithin5s: true,
      big: true,
      opaque: true,
      solid: true,
    });
  },
  120_000,
);

browserTest(
  'server going down: pings answered at once, play-log sends refused: the sends back off instead of one per ping',
  async () => {
    // What a stopping server looks like to a screen (issue 35, 63 POSTs in 4.3 s): a long-poll ping
    // answered at once with nothing to do (its wait cut short), while ingestion refuses. Every answered
    // ping flushes the play-log queue; without a back-off, each one sent a POST. Plays keep coming (one a second).
    const posts: number[] = [];
    await screen.route('**/player/**', (route) => {
      const url = route.request().url();
      if (url.includes('/playlogs')) {
        posts.push(Date.now());
        return route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"UNAVAILABLE"}}' });
      }
      if (/\/ping(\?|$)/.test(url)) {
        // A short pause, as a network round trip has (and so the page is not spun flat out).
        return new Promise<void>((r) => setTimeout(r, 50)).then(() =>
          route
            .fulfill({
              status: 200,
              contentType: 'application/json',
              body: JSON.stringify({ device_id: device.id, commands: [], server_time: `${new Date().toISOString().slice(0, 19)}Z` }),
            })
            // The route may be gone by then (unrouted at the end): nothing to answer.
            .catch(() => undefined),
        );
      }
      return route.fallback();
    });
    const from = Date.now();
    await new Promise((r) => setTimeout(r, 8000));
    const during = posts.filter((t) => t >= from && t < from + 8000).length;
    await screen.unroute('**/player/**');
    // Back-off from the first failure (2 s doubling, full jitter): at most 4 sends in 8 s.
    expect({ postsIn8s: during, backedOff: during <= 4 }).toEqual({ postsIn8s: during, backedOff: true });
  },
  60_000,
);

browserTest(
  '/screens: a screen without a screenshot shows a placeholder, not a broken image',
  async () => {
    // A screen that never pinged: offline on the page.
    const quiet = await rest('POST', '/devices', { name: 'Quiet screen', timezone: 'UTC' });
    expect(quiet.status).toBe(201);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/screens`);
    await page.fill('#key', KEY);
    await page.press('#key', 'Enter');
    const card = page.locator(`[data-device-id="${device.id}"]`);
    await card.waitFor({ state: 'visible', timeout: 30_000 });
    // Give the snapshot request time to answer (404: none taken).
    await page.waitForTimeout(1500);
    const broken = await page.evaluate(`[...document.querySelectorAll('.screen-card img')].filter((i) => !i.complete || i.naturalWidth === 0).length`);
    expect(broken).toBe(0);
    expect(await card.innerText()).toContain('no screenshot yet');
    // Named by a heading, and each screen's state legible on its card: online and offline text
    // against the card at WCAG AA contrast (4.5:1), the element's own opacity blended in.
    expect(await page.locator('h1').innerText()).toBe('Screens');
    await page.locator('.screen-card .offline').first().waitFor({ timeout: 30_000 });
    const contrasts = (await page.evaluate(`(() => {
      const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
      const lum = (c) => { const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
      return [...document.querySelectorAll('.screen-card .online, .screen-card .offline')].slice(0, 20).map((el) => {
        const bg = rgb(getComputedStyle(el.closest('.screen-card')).backgroundColor);
        const a = Number(getComputedStyle(el).opacity);
        const fg = rgb(getComputedStyle(el).color).map((v, i) => a * v + (1 - a) * bg[i]);
        const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        return { state: el.className, ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 10) / 10 };
      });
    })()`)) as { state: string; ratio: number }[];
    expect(contrasts.filter((c) => c.ratio < 4.5)).toEqual([]);
    expect(contrasts.some((c) => c.state === 'offline')).toBe(true);
    await page.close();
  },
  60_000,
);
