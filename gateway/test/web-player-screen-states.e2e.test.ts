/**
 * What a screen shows between and around content (issue 35), in headless Chromium against the
 * all-in-one run as a process like `npm start`: a paired screen with nothing scheduled shows a calm
 * idle card (not black); 25 image transitions (8K images) sampled frame by frame (CDP screencast) show no
 * black frame (see IMAGE_SIZE); with the server unreachable the offline label is legible (a TV's
 * 3 % of the height at least, opaque) and clears within 5 s of the server's return, while play-log
 * sends back off; a stopping server (pings answered at once, play logs refused) sees no burst of sends; the
 * operator's /screens page shows no broken image where a screen has no screenshot, and its states
 * legibly. The idle card names the screen as the operator named it.
 * Waits poll for conditions with generous limits (a busy 2-core machine).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { freePort, Processes } from './processes.js';
import { apiClient, png, SCREEN_ARGS, until } from './support/player-browser.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const KEY = 'screen-states-key-0123456789abcdef';
/**
 * The transition images' size: 8K, as a designer exports them. Chromium paints an image that large
 * late once it starts to fade in (it decodes it again as it is shown), so the old player, which tore
 * the previous item down a fixed 500 ms after the swap, showed black between items (issue 35, item 8):
 * 65 black frames of 539 in one run on a loaded 2-core machine, 30 to 49 in earlier ones. With 1080p,
 * 4K (3840x2160) or 6K (5760x3240) images, or 1080p with the page's CPU throttled 6x (CDP), the old
 * player showed none there, so those would not prove the fix. PYLON_TEST_IMAGE=WxH picks another
 * size for a quicker local run (which then proves nothing about black frames).
 */
/**
 * Transitions judged: 25 (each a gap the old player could show black in), about half the run time
 * of 50 (CI stays under its 30 minutes). Under load (average 20-25 on 2 cores) the old player showed
 * black in 12 to 18 gaps of 50 with 8K images; on an idle machine it showed none in 25, with 8K
 * images and with the page's CPU throttled 4x as well: this test proves the fix only on a busy
 * machine (issue 35, item 8).
 */
const TRANSITIONS = 25;
const IMAGE_SIZE = imageSize(process.env.PYLON_TEST_IMAGE ?? '7680x4320');
function imageSize(text: string): [number, number] {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(text);
  if (!m) throw new Error(`PYLON_TEST_IMAGE must be WIDTHxHEIGHT in pixels (e.g. 1920x1080), not ${JSON.stringify(text)}`);
  return [Number(m[1]), Number(m[2])];
}
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI !== 'true') console.warn(`skipping the screen states test: no chromium at ${CHROMIUM}`);
const browserTest = haveChromium || process.env.CI === 'true' ? test : test.skip;

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
  dir = await mkdtemp(join(tmpdir(), 'pylon-screen-states-'));
  procs = new Processes({ secret: 's'.repeat(64), dataDir: join(dir, 'data') });
  const [port, legacyPort] = await Promise.all([freePort(), freePort()]);
  baseUrl = await procs.start(
    'launcher/src/all-in-one.main.ts',
    { LEGACY_PORT: String(legacyPort), SIGNAGE_BOOTSTRAP_API_KEY: KEY, SIGNAGE_SIMULATOR: 'false', NODE_ENV: 'development' },
    port,
    90_000,
  );
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: SCREEN_ARGS,
    viewport: { width: 640, height: 360 },
  });
  helper = await context.newPage();
  const created = await rest('POST', '/devices', { name: 'Hall screen', timezone: 'UTC' });
  if (created.status !== 201) throw new Error(`device: ${created.status} ${JSON.stringify(created.body)}`);
  device = created.body;
}, 180_000);

afterAll(async () => {
  // The browser and the server stop together, then their files go.
  await Promise.all([context?.close(), procs?.stopAll()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

browserTest(
  'a paired screen with nothing scheduled shows a calm idle card: nothing scheduled, the time, the server it reaches',
  async () => {
    screen = await context.newPage();
    await screen.goto(`${baseUrl}/play?key=${encodeURIComponent(device.registration_key)}`);
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
    const [bg] = await pixels(shot, [[0.05, 0.05]]);
    expect(Math.max(...bg!)).toBeGreaterThan(12);
  },
  120_000,
);

type Rgb = [number, number, number];
/** Colours of a PNG or JPEG at relative points, decoded by the browser in the helper page. */
async function pixels(image: Buffer, points: [number, number][], type = 'image/png'): Promise<Rgb[]> {
  // A string, as the other browser tests do: the test's types have no DOM.
  return helper.evaluate(`(async () => {
    const img = new Image();
    img.src = 'data:${type};base64,${image.toString('base64')}';
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return ${JSON.stringify(points)}.map(([x, y]) => Array.from(g.getImageData(Math.floor(x * (c.width - 1)), Math.floor(y * (c.height - 1)), 1, 1).data.slice(0, 3)));
  })()`);
}

browserTest(
  `${TRANSITIONS} image transitions sampled frame by frame: no black frame`,
  async () => {
    const group = (await rest('POST', '/media/groups', { name: 'Transitions' })).body.id;
    const playlist = (await gql('mutation { createPlaylist(input: { name: "Transitions" }) { playlist { id } } }')).createPlaylist.playlist.id;
    for (const [i, image] of images.entries()) {
      const r = await rest('POST', `/media/${group}/c${i}.png?name=C${i}`, image, 'application/octet-stream');
      expect(r.status).toBe(201);
      await gql('mutation($p: ID!, $f: ID!) { addPlaylistSource(input: { playlistId: $p, fileId: $f, interval: 1 }) { success } }', {
        p: playlist,
        f: r.body.id,
      });
    }
    const made = await gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error } }', {
      i: { name: 'Transitions', type: 'PLAYLIST', playlistId: playlist, deviceIds: [device.id], priority: 'HIGHEST' },
    });
    expect(made.createSchedule.success).toBe(true);
    await until('the playlist on screen', async () => !(await data('idle')) && Number(await data('createdPlays')) >= 1, 60_000);
    // Every frame Chromium produces, as it produces them, for TRANSITIONS transitions.
    const cdp = await context.newCDPSession(screen);
    const frames: string[] = [];
    cdp.on('Page.screencastFrame', (f: { data: string; sessionId: number }) => {
      frames.push(f.data);
      void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
    });
    const before = Number(await data('createdPlays'));
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 60, everyNthFrame: 1 });
    // Judged from the first transition after the screencast started: its own first frames can be dark
    // after a first one that is not (frames 1-5 of 1,122 in two of five runs on a loaded machine,
    // never later), a capture artefact, not the player.
    await until('a first transition', async () => Number(await data('createdPlays')) >= before + 1, 60_000, 50);
    const from = frames.length;
    // 8K images: 50 transitions took 240 s on a 2-core machine at load 24 (the limits leave room for worse).
    await until(`${TRANSITIONS} transitions`, async () => Number(await data('createdPlays')) >= before + TRANSITIONS + 1, 420_000, 250);
    await cdp.send('Page.stopScreencast');
    expect(frames.length).toBeGreaterThan(50);
    // A frame is black where a row of the screen shows none of the colours: sampled on a 5 x 9 grid.
    const grid: [number, number][] = [];
    for (const y of [0.1, 0.3, 0.5, 0.7, 0.9]) for (const x of [0.05, 0.15, 0.25, 0.35, 0.5, 0.65, 0.75, 0.85, 0.95]) grid.push([x, y]);
    // Judged from the first frame showing an image after `from` (the screencast's own first frames may predate one).
    const black: number[] = [];
    let judged = 0;
    for (const [i, f] of frames.entries()) {
      if (i < from) continue;
      const px = await pixels(Buffer.from(f, 'base64'), grid, 'image/jpeg');
      const dark = px.some((p) => Math.max(...p) < 60);
      if (!judged && dark) continue;
      judged++;
      if (dark) black.push(i);
    }
    expect(judged).toBeGreaterThan(100);
    expect({ frames: frames.length, black }).toEqual({ frames: frames.length, black: [] });
  },
  600_000,
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
