/**
 * The web player in a real browser (headless Debian chromium driven by playwright-core) against
 * the all-in-one run as a process like `npm start`: a fresh /play screen pairs through claimDevice;
 * a scheduled red image shows red pixels (and the screenshot command uploads a JPEG of it); a
 * schedule change to green shows green within 2 s; a template's two zones both show; a video plays;
 * a web page source shows in a sandboxed frame; a menu board follows a row edit within 2 s;
 * a reboot command reloads the page; with the server stopped the screen keeps playing, and after the
 * restart the play logs of the outage reach the store exactly once. Play logs carry their UTC end,
 * status (a file that cannot load is logged as skipped), the clock offset and the template zone.
 * Screenshots of the pairing page and of a playing template go to .tmp/screenshots/ (with
 * UPDATE_SCREENSHOTS=true to docs/screenshots/, shown in docs/player.md).
 * Waits poll for conditions with generous limits (a busy 2-core machine).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { browserTest as chromiumTest, CHROMIUM, haveChromium, SHOTS } from '../../gateway/test/chromium.js';
import { freePort, Processes } from '../../gateway/test/processes.js';
import { apiClient, png, SCREEN_ARGS, until, type Json } from './support/player-browser.js';

const KEY = 'web-player-key-0123456789abcdef';
const browserTest = chromiumTest('the web player test');

let dir: string;
let procs: Processes;
let port: number;
let legacyPort: number;
let baseUrl: string;
let context: BrowserContext;
let screen: Page;
let helper: Page;
let device: { id: string; registration_key: string };
let scheduleId: string;
let groupId: string;
const media: Record<string, string> = {};
const playlists: Record<string, string> = {};

const { gql, rest } = apiClient(() => baseUrl, KEY);
async function upload(name: string, bytes: Buffer, file: string): Promise<string> {
  const r = await rest('POST', `/media/${groupId}/${file}?name=${name}`, bytes, 'application/octet-stream');
  if (r.status !== 201) throw new Error(`upload ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
}
async function playlist(name: string, fileId: string, interval: number): Promise<string> {
  const id = (await gql(`mutation { createPlaylist(input: { name: "${name}" }) { playlist { id } } }`)).createPlaylist.playlist.id;
  await gql('mutation($p: ID!, $f: ID!, $i: Int) { addPlaylistSource(input: { playlistId: $p, fileId: $f, interval: $i }) { success } }', {
    p: id,
    f: fileId,
    i: interval,
  });
  return id;
}
/** Points the screen's one schedule at a playlist or template. */
async function schedule(content: { playlistId?: string; templateId?: string }, priority = 'HIGHEST'): Promise<void> {
  const input = {
    name: 'Web player',
    type: content.templateId ? 'TEMPLATE' : 'PLAYLIST',
    ...content,
    deviceIds: [device.id],
    priority,
  };
  if (!scheduleId) {
    const r = await gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error schedule { id } } }', { i: input });
    if (!r.createSchedule.success) throw new Error(r.createSchedule.error);
    scheduleId = r.createSchedule.schedule.id;
  } else {
    const r = await gql('mutation($id: ID!, $i: ScheduleInput!) { updateSchedule(id: $id, input: $i) { success error } }', { id: scheduleId, i: input });
    if (!r.updateSchedule.success) throw new Error(r.updateSchedule.error);
  }
}

type Rgb = [number, number, number];
/** Colours of a page screenshot at relative points (decoded by the browser itself, in a blank page). */
async function colours(points: [number, number][], shot?: Buffer): Promise<Rgb[]> {
  const b64 = (shot ?? (await screen.screenshot())).toString('base64');
  return helper.evaluate(`(async () => {
    const img = new Image();
    img.src = 'data:image/png;base64,${b64}';
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return ${JSON.stringify(points)}.map(([x, y]) => Array.from(g.getImageData(Math.floor(x * c.width), Math.floor(y * c.height), 1, 1).data.slice(0, 3)));
  })()`);
}
const isRed = ([r, g, b]: Rgb) => r > 180 && g < 90 && b < 90;
const isGreen = ([r, g, b]: Rgb) => g > 150 && r < 90 && b < 90;

const data = async (name: string) => (await screen.evaluate(`document.body.dataset[${JSON.stringify(name)}] || ''`)) as string;

async function startServer(): Promise<void> {
  baseUrl = await procs.start(
    'launcher/src/all-in-one.main.ts',
    { LEGACY_PORT: String(legacyPort), SIGNAGE_BOOTSTRAP_API_KEY: KEY, SIGNAGE_SIMULATOR: 'false', NODE_ENV: 'development' },
    port,
    90_000,
  );
}

beforeAll(async () => {
  if (!haveChromium) return;
  dir = await mkdtemp(join(tmpdir(), 'pylon-web-player-'));
  procs = new Processes({ secret: 's'.repeat(64), dataDir: join(dir, 'data') });
  [port, legacyPort] = await Promise.all([freePort(), freePort()]);
  await startServer();
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [...SCREEN_ARGS, '--autoplay-policy=no-user-gesture-required'],
    viewport: { width: 640, height: 360 },
  });
  helper = await context.newPage();
  await mkdir(SHOTS, { recursive: true });
  groupId = (await rest('POST', '/media/groups', { name: 'Web player' })).body.id;
  media.red = await upload('Red', png([230, 20, 20]), 'red.png');
  media.green = await upload('Green', png([20, 200, 40]), 'green.png');
  playlists.red = await playlist('Red', media.red, 2);
  playlists.green = await playlist('Green', media.green, 2);
}, 180_000);

afterAll(async () => {
  await context?.close();
  await procs?.stopAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

browserTest(
  'a fresh /play screen shows a pairing code; claimDevice pairs it and the screen receives its key',
  async () => {
    screen = await context.newPage();
    await screen.goto(`${baseUrl}/play`);
    const code = await until('a pairing code', () => data('pairingCode'), 60_000);
    expect(code).toMatch(/^[A-Z0-9]{6}$/);
    expect(await screen.locator('#pairing-code').innerText()).toBe(code);
    await screen.screenshot({ path: join(SHOTS, 'web-player-pairing.png') });
    const r = await gql(
      'mutation($c: String!) { claimDevice(code: $c, name: "Browser screen", timeZone: "Europe/Amsterdam") { success error device { id registrationKey } } }',
      {
        c: code.toLowerCase(),
      },
    );
    expect(r.claimDevice).toMatchObject({ success: true });
    device = { id: r.claimDevice.device.id, registration_key: r.claimDevice.device.registrationKey };
    await until('the screen to play', async () => (await data('state')) === 'playing', 30_000);
    expect(await screen.evaluate(`localStorage.getItem('pylon.player.key')`)).toBe(device.registration_key);
    await until('the Service Worker to control the page', async () => (await data('sw')) === 'controlled', 30_000);
  },
  120_000,
);

browserTest(
  'a scheduled red image shows red pixels; the screenshot command uploads that frame and is acknowledged',
  async () => {
    await schedule({ playlistId: playlists.red });
    await until('red on screen', async () => isRed((await colours([[0.5, 0.5]]))[0]!), 30_000);
    const sent = await rest('POST', `/devices/${device.id}/commands`, [{ command: 'screenshot' }]);
    expect(sent.status).toBe(204);
    const snap = await until(
      'the uploaded screenshot',
      async () => {
        const res = await fetch(`${baseUrl}/devices/${device.registration_key}/snap`, { headers: { 'x-service-apikey': KEY } });
        return res.status === 200 ? Buffer.from(await res.arrayBuffer()) : undefined;
      },
      30_000,
      250,
    );
    expect(snap.subarray(0, 2).toString('hex')).toBe('ffd8');
    const jpeg = await helper.evaluate(`(async () => {
      const img = new Image(); img.src = 'data:image/jpeg;base64,${snap.toString('base64')}'; await img.decode();
      const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
      const g = c.getContext('2d'); g.drawImage(img, 0, 0);
      return Array.from(g.getImageData(c.width >> 1, c.height >> 1, 1, 1).data.slice(0, 3));
    })()`);
    expect(isRed(jpeg as Rgb)).toBe(true);
    const acked = await until(
      'the screenshot command acknowledged',
      async () => {
        const list = (await rest('GET', `/devices/${device.id}/commands`)).body as Json[];
        return list.find((c) => c.command === 'screenshot' && c.status === 'Acknowledged');
      },
      30_000,
      250,
    );
    expect(acked).toBeTruthy();
  },
  120_000,
);

browserTest(
  'changing the schedule to a green image reaches the glass within 2 s, without a reload',
  async () => {
    await screen.evaluate('window.__sameDocument = true');
    const started = Date.now();
    await schedule({ playlistId: playlists.green });
    await until('green on screen', async () => isGreen((await colours([[0.5, 0.5]]))[0]!), 10_000, 50);
    const elapsed = Date.now() - started;
    console.log(`edit to glass: ${elapsed} ms`);
    expect(elapsed).toBeLessThan(2000);
    expect(await screen.evaluate('window.__sameDocument === true')).toBe(true);
  },
  60_000,
);

// Edit-to-glass latency over several edits (5 here; WEB_PLAYER_EDITS=50 for the benchmark in BENCHMARKS.md):
// from sending the schedule change to the new colour in the middle of a page screenshot.
browserTest(
  'edit to glass, p50 and p95 over alternating red/green schedule edits',
  async () => {
    const edits = Number(process.env.WEB_PLAYER_EDITS ?? 5);
    const times: number[] = [];
    let green = true;
    for (let i = 0; i < edits; i++) {
      green = !green;
      const started = Date.now();
      await schedule({ playlistId: green ? playlists.green : playlists.red });
      await until('the edited colour', async () => (green ? isGreen : isRed)((await colours([[0.5, 0.5]]))[0]!), 10_000, 25);
      times.push(Date.now() - started);
      // Let the cross-fade settle before the next edit.
      await new Promise((r) => setTimeout(r, 600));
    }
    times.sort((a, b) => a - b);
    const pct = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!;
    console.log(`edit to glass over ${edits} edits: p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${times.at(-1)} ms`);
    expect(pct(95)).toBeLessThan(2000);
  },
  600_000,
);

// Memory over a loop of 2-second items (WEB_PLAYER_SOAK_MINUTES, default 0: skipped; the benchmark runs 10):
// the JS heap after a forced GC at the end must be within 10% of the heap after the first minute.
(Number(process.env.WEB_PLAYER_SOAK_MINUTES ?? 0) > 0 ? browserTest : test.skip)(
  'soak: no heap growth over a loop of 2-second items',
  async () => {
    const minutes = Number(process.env.WEB_PLAYER_SOAK_MINUTES);
    const both = (await gql('mutation { createPlaylist(input: { name: "Soak" }) { playlist { id } } }')).createPlaylist.playlist.id as string;
    for (const f of [media.red, media.green])
      await gql('mutation($p: ID!, $f: ID!) { addPlaylistSource(input: { playlistId: $p, fileId: $f, interval: 2 }) { success } }', { p: both, f });
    await schedule({ playlistId: both });
    const cdp = await context.newCDPSession(screen);
    await cdp.send('Performance.enable');
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      const m = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
      const v = (n: string) => m.metrics.find((x) => x.name === n)?.value ?? 0;
      return { heap: v('JSHeapUsedSize'), nodes: v('Nodes'), cpu: v('TaskDuration') };
    };
    await new Promise((r) => setTimeout(r, 60_000));
    const first = await heap();
    const started = Date.now();
    await new Promise((r) => setTimeout(r, (minutes - 1) * 60_000));
    const last = await heap();
    const cpuShare = (last.cpu - first.cpu) / ((Date.now() - started) / 1000);
    console.log(
      `soak ${minutes} min of 2 s items: heap ${(first.heap / 1e6).toFixed(2)} MB after 1 min, ${(last.heap / 1e6).toFixed(2)} MB at the end ` +
        `(${(((last.heap - first.heap) / first.heap) * 100).toFixed(1)}%); DOM nodes ${first.nodes} -> ${last.nodes}; page main-thread CPU ${(cpuShare * 100).toFixed(1)}%`,
    );
    expect(last.heap).toBeLessThan(first.heap * 1.1);
    await cdp.detach();
  },
  3_600_000,
);

browserTest(
  'a template with two zones shows both, laid out as it defines',
  async () => {
    const t = await gql(
      `mutation($l: String, $r: String) { createTemplate(input: { name: "Split", width: 1600, height: 900, modules: [
        { name: "left", left: 0, top: 0, width: 800, height: 900, playlistId: $l },
        { name: "right", left: 800, top: 0, width: 800, height: 900, playlistId: $r }] }) { success error template { id } } }`,
      { l: playlists.red, r: playlists.green },
    );
    expect(t.createTemplate.success).toBe(true);
    await schedule({ templateId: t.createTemplate.template.id });
    await until(
      'red left and green right',
      async () => {
        const [left, right] = await colours([
          [0.25, 0.5],
          [0.75, 0.5],
        ]);
        return isRed(left!) && isGreen(right!);
      },
      30_000,
    );
    await screen.screenshot({ path: join(SHOTS, 'web-player-template.png') });
  },
  60_000,
);

browserTest(
  'play logs carry UTC start and end, the clock offset, status and the template zone; a file that cannot load is logged as skipped',
  async () => {
    // A WebM header (EBML, DocType webm) over garbage: the upload keeps it as a video (its type is
    // proven by its bytes; the probes cannot read it), the browser cannot play it.
    const webmHeader = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x87, 0x42, 0x82, 0x84, ...Buffer.from('webm')]);
    media.broken = await upload('Broken', Buffer.concat([webmHeader, Buffer.alloc(4096, 0x5a)]), 'broken.webm');
    playlists.broken = await playlist('Broken', media.broken, 2);
    const t = await gql(
      `mutation($l: String, $r: String) { createTemplate(input: { name: "Half broken", width: 1600, height: 900, modules: [
        { name: "left", left: 0, top: 0, width: 800, height: 900, playlistId: $l },
        { name: "right", left: 800, top: 0, width: 800, height: 900, playlistId: $r }] }) { success error template { id modules { id name } } } }`,
      { l: playlists.red, r: playlists.broken },
    );
    expect(t.createTemplate.success).toBe(true);
    const zone = Object.fromEntries((t.createTemplate.template.modules as Json[]).map((m) => [m.name, m.id]));
    const since = Date.now();
    await schedule({ templateId: t.createTemplate.template.id });
    await until('red on the left', async () => isRed((await colours([[0.25, 0.5]]))[0]!), 30_000);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    // Plays are sent every 10 s (and after each ping), then pass the stream and the ingest: 60 s is generous.
    const rows = await until(
      'a completed play of the left zone and a skipped one of the right zone in the store',
      async () => {
        const list = (
          await gql(
            `query($d: [String!], $f: String!, $t: String!) { playLogs(startDate: $f, endDate: $t, deviceId: $d, limit: 4000) {
              id timestamp endTimestamp duration fileId status clockOffsetMs zoneId } }`,
            { d: [device.id], f: day(new Date(since - 86_400_000)), t: day(new Date(since + 86_400_000)) },
          )
        ).playLogs as Json[];
        const mine = list.filter((r) => Date.parse(r.timestamp) >= since - 1000);
        const done = mine.find((r) => r.zoneId === zone.left && r.status === 'completed');
        const skipped = mine.find((r) => r.zoneId === zone.right && r.status === 'skipped');
        return done && skipped ? { done, skipped } : undefined;
      },
      60_000,
      1000,
    );
    expect(rows.done).toMatchObject({ fileId: media.red, status: 'completed', zoneId: zone.left });
    // Seconds-precision instants: the end lies the play's duration after the start.
    const span = (Date.parse(rows.done.endTimestamp) - Date.parse(rows.done.timestamp)) / 1000;
    expect(Math.abs(span - rows.done.duration)).toBeLessThanOrEqual(1);
    expect(rows.done.duration).toBeGreaterThan(1.5);
    // Same machine: the offset is what the ping's whole-second server_time allows (well under 2 s).
    expect(typeof rows.done.clockOffsetMs).toBe('number');
    expect(Math.abs(rows.done.clockOffsetMs)).toBeLessThan(2000);
    expect(rows.skipped).toMatchObject({ fileId: media.broken, status: 'skipped', duration: 0, zoneId: zone.right });
    expect(rows.skipped.endTimestamp).toBe(rows.skipped.timestamp);
  },
  120_000,
);

browserTest(
  'a video plays (a WebM recorded in the browser at test time)',
  async () => {
    const b64 = (await helper.evaluate(`(async () => {
      const c = document.createElement('canvas'); c.width = 320; c.height = 180;
      const g = c.getContext('2d');
      const rec = new MediaRecorder(c.captureStream(25), { mimeType: 'video/webm;codecs=vp8' });
      const chunks = [];
      rec.ondataavailable = (e) => chunks.push(e.data);
      rec.start(250);
      const t0 = performance.now();
      await new Promise((resolve) => {
        const frame = () => {
          const k = performance.now() - t0;
          g.fillStyle = 'rgb(20,40,230)'; g.fillRect(0, 0, 320, 180);
          g.fillStyle = '#fff'; g.fillRect((k / 10) % 280, 60, 40, 60);
          if (k < 3000) setTimeout(frame, 40); else resolve();
        };
        frame();
      });
      const stopped = new Promise((r) => (rec.onstop = r));
      rec.stop();
      await stopped;
      const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      return btoa(s);
    })()`)) as string;
    media.video = await upload('Clip', Buffer.from(b64, 'base64'), 'clip.webm');
    playlists.video = await playlist('Clip', media.video, 4);
    // Heard, not sampled: media events do not bubble, but a capture listener on the document sees every
    // video's progress, so a loaded browser that plays the 3 s clip between two polls still counts.
    await screen.evaluate(`(() => {
      window.videoProgress = 0;
      document.addEventListener('timeupdate', (e) => {
        if (e.target instanceof HTMLVideoElement) window.videoProgress = Math.max(window.videoProgress, e.target.currentTime);
      }, true);
    })()`);
    await schedule({ playlistId: playlists.video });
    await until(
      'a playing video',
      async () => {
        const seen = (await screen.evaluate(`(() => {
          const v = document.querySelector('.item.shown video');
          return JSON.stringify({ progress: window.videoProgress, manifest: document.body.dataset.manifestVersion || '',
            video: v ? { paused: v.paused, at: v.currentTime, ready: v.readyState, error: v.error && v.error.code } : null });
        })()`)) as string;
        if (JSON.parse(seen).progress > 0.3) return true;
        throw new Error(seen); // the timeout names the screen's last state
      },
      60_000,
      200,
    );
  },
  90_000,
);

browserTest(
  'a web page source plays in a sandboxed frame, its address from the manifest',
  async () => {
    // A page on another origin (a loopback server of the test), a purple background.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body style="margin:0;background:rgb(130,20,200);height:100vh"><h1>Web page</h1></body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/board.html`;
      const id = (await gql('mutation { createPlaylist(input: { name: "Web page" }) { playlist { id } } }')).createPlaylist.playlist.id as string;
      const added = await gql('mutation($p: ID!, $u: String!) { addPlaylistWebPage(input: { playlistId: $p, url: $u, interval: 5 }) { success error } }', {
        p: id,
        u: pageUrl,
      });
      expect(added.addPlaylistWebPage.success).toBe(true);
      await schedule({ playlistId: id });
      const isPurple = ([r, g, b]: Rgb) => r > 100 && r < 170 && g < 60 && b > 160;
      await until('the web page on screen', async () => isPurple((await colours([[0.5, 0.8]]))[0]!), 30_000);
      const frame = (await screen.evaluate(
        `(() => { const f = document.querySelector('.item.shown iframe'); return f && { src: f.src, sandbox: f.getAttribute('sandbox') }; })()`,
      )) as {
        src: string;
        sandbox: string;
      };
      expect(frame).toEqual({ src: pageUrl, sandbox: 'allow-scripts allow-same-origin' });
      const m = (await (await fetch(`${baseUrl}/player/${device.registration_key}/manifest`)).json()) as Json;
      expect(m.now.content.sources).toEqual([expect.objectContaining({ type: 'WEB_PAGE', page_url: pageUrl, media: null })]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  },
  90_000,
);

browserTest(
  'a data-table module renders the rows as a menu board, and a row edit changes it on screen',
  async () => {
    const t = await gql(
      `mutation { createDataTable(input: { name: "Menu", columns: [
        { name: "Dish", key: "dish", type: TEXT, required: true }, { name: "Price", key: "price", type: NUMBER }, { name: "Code", key: "code", type: HIDDEN }] }) {
        success error table { id } } }`,
    );
    expect(t.createDataTable.success).toBe(true);
    const tableId = t.createDataTable.table.id;
    const row = async (data: Json) =>
      (await gql('mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { success error row { id } } }', { i: { tableId, data } }))
        .createDataTableRow.row.id as string;
    const soup = await row({ dish: 'Tomato soup', price: 4.5, code: 'secret-1' });
    await row({ dish: 'Bread', price: 2 });
    const tpl = await gql(
      `mutation($p: String, $d: String) { createTemplate(input: { name: "Menu board", width: 1600, height: 900, modules: [
        { name: "menu", left: 0, top: 0, width: 1000, height: 900, dataTableId: $d },
        { name: "picture", left: 1000, top: 0, width: 600, height: 900, playlistId: $p }] }) { success error template { id } } }`,
      { p: playlists.green, d: tableId },
    );
    expect(tpl.createTemplate.success).toBe(true);
    await schedule({ templateId: tpl.createTemplate.template.id });
    const menu = () =>
      screen.evaluate(`(() => { const t = document.querySelector('.scene:last-child .table'); return t ? t.innerText : ''; })()`) as Promise<string>;
    await until('the menu board', async () => (await menu()).includes('Tomato soup'), 30_000, 200);
    const shown = await menu();
    expect(shown).toContain('Bread');
    expect(shown).toContain('4.5');
    expect(shown).not.toContain('secret-1'); // HIDDEN columns stay off screen
    const edited = Date.now();
    const u = await gql('mutation($i: UpdateDataTableRowInput!) { updateDataTableRow(input: $i) { success error } }', {
      i: { tableId, rowId: soup, data: { dish: 'Pumpkin soup', price: 5 } },
    });
    expect(u.updateDataTableRow.success).toBe(true);
    await until('the edited row on screen', async () => (await menu()).includes('Pumpkin soup'), 10_000, 50);
    const latency = Date.now() - edited;
    console.log(`data-table edit to glass: ${latency} ms`);
    // Through the long-poll (the ping names the table; the edit ends its wait), not a poll of the rows.
    expect(latency).toBeLessThan(2000);
    // Another account's table cannot be put on a screen: the template is refused.
    expect(
      (
        await gql(
          `mutation { createTemplate(input: { name: "Foreign board", width: 100, height: 100, modules: [
            { name: "menu", left: 0, top: 0, width: 100, height: 100, dataTableId: "not-a-table-of-this-account" }] }) { success errorField } }`,
        )
      ).createTemplate,
    ).toMatchObject({ success: false, errorField: 'modules[0].dataTableId' });
  },
  90_000,
);

browserTest(
  'valid_until: a window ending in 30 s switches the screen to `next` on time, without waiting for a ping',
  async () => {
    // Below the red window's priority, so the window wins whatever the modification times.
    await schedule({ playlistId: playlists.green }, 'HIGH');
    // The device's zone (claimed with Europe/Amsterdam): a red window from now to a whole second 30 s away
    // (HH:MM:SS; on a loaded machine the red window may take a while to reach the glass: up to 25 s is allowed below).
    const hhmmss = (t: number) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Amsterdam', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(t);
    // A window across local midnight would run overnight from its start: begin after midnight instead.
    if (hhmmss(Date.now() + 32_000) < hhmmss(Date.now())) await new Promise((resolve) => setTimeout(resolve, 33_000));
    const boundary = Math.ceil((Date.now() + 30_000) / 1000) * 1000;
    const r = await gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error schedule { id } } }', {
      i: {
        name: 'Red window',
        type: 'PLAYLIST',
        playlistId: playlists.red,
        deviceIds: [device.id],
        priority: 'HIGHEST',
        startTime: hhmmss(Date.now() - 1000),
        endTime: hhmmss(boundary),
      },
    });
    expect(r.createSchedule.success).toBe(true);
    await until('red in its window', async () => isRed((await colours([[0.5, 0.5]]))[0]!), 25_000);
    const m = (await (await fetch(`${baseUrl}/player/${device.registration_key}/manifest`)).json()) as Json;
    expect(Date.parse(m.valid_until)).toBe(boundary);
    await until('green after the window', async () => isGreen((await colours([[0.5, 0.5]]))[0]!), boundary - Date.now() + 15_000, 50);
    const late = Date.now() - boundary;
    console.log(`valid_until switch: ${late} ms after the boundary`);
    expect(late).toBeLessThan(1500);
    await gql('mutation($id: ID!) { deleteSchedule(id: $id) { success } }', { id: r.createSchedule.schedule.id });
  },
  150_000,
);

browserTest(
  "a 429 with Retry-After (the screen's play-log limit) holds the play-log queue until then (issue 34, M4)",
  async () => {
    let sent = 0;
    await context.route('**/player/*/playlogs', async (route) => {
      sent++;
      await route.fulfill({ status: 429, headers: { 'Retry-After': '30', 'Content-Type': 'application/json' }, body: '{"error":{"code":"RATE_LIMITED"}}' });
    });
    try {
      // A send begun before the route was in place ends first (it may take every queued play with it).
      await screen.evaluate('window.pylonPlayer.queue.sending');
      await until('a play queued', async () => Number((await data('createdPlays')) || 0) > 0 && Number((await data('pendingPlays')) || 0) > 0, 60_000, 250);
      // An earlier test's failed send may still hold the queue in its back-off: start from none, so the
      // first flush below sends and meets the 429.
      await screen.evaluate('window.pylonPlayer.queue.retryAt = 0');
      // Flushes that come before Retry-After has passed send nothing (before: each one sent the batch again).
      const before = sent;
      for (let i = 0; i < 3; i++) await screen.evaluate('window.pylonPlayer.queue.flush()');
      expect(sent - before).toBeLessThanOrEqual(1);
      expect(sent).toBeGreaterThanOrEqual(1);
      const holdMs = (await screen.evaluate('window.pylonPlayer.queue.retryAt - performance.now()')) as number;
      expect(holdMs).toBeGreaterThan(20_000);
      expect(holdMs).toBeLessThanOrEqual(30_000);
    } finally {
      await context.unroute('**/player/*/playlogs');
    }
  },
  90_000,
);

browserTest(
  'a reboot command reloads the page, which plays again, and is acknowledged',
  async () => {
    await schedule({ playlistId: playlists.green });
    await screen.evaluate('window.__beforeReboot = true');
    expect((await rest('POST', `/devices/${device.id}/commands`, [{ command: 'reboot' }])).status).toBe(204);
    await until(
      'a reloaded page',
      async () => (await screen.evaluate('window.__beforeReboot === undefined')) && (await data('state')) === 'playing',
      60_000,
      250,
    );
    await until('green again', async () => isGreen((await colours([[0.5, 0.5]]))[0]!), 30_000);
    const acked = await until(
      'the reboot acknowledged',
      async () => ((await rest('GET', `/devices/${device.id}/commands`)).body as Json[]).find((c) => c.command === 'reboot' && c.status === 'Acknowledged'),
      30_000,
      250,
    );
    expect(acked).toBeTruthy();
  },
  120_000,
);

browserTest(
  'the server stops: the screen keeps playing from its cache; after the restart the outage play logs arrive exactly once',
  async () => {
    // Everything the manifest names is cached, and the plays so far have been sent.
    await until('files cached', async () => (await data('cachedFiles')) !== '' && (await data('cachedFiles')) === (await data('cacheTotal')), 60_000, 250);
    // The manifest goes past the Service Worker (static routing), fetched and kept by the page itself.
    const fetched = screen.waitForResponse((r) => r.url().endsWith('/manifest'));
    await screen.evaluate('window.pylonPlayer.refreshManifest(true)');
    expect((await fetched).fromServiceWorker()).toBe(false);
    await procs.stopAll();
    procs = new Processes({ secret: 's'.repeat(64), dataDir: join(dir, 'data') });
    const pendingAtStop = Number((await data('pendingPlays')) || 0);
    // Offline: items keep changing (new elements, files from the Service Worker) and plays queue up.
    await until('plays queued offline', async () => Number((await data('pendingPlays')) || 0) >= pendingAtStop + 3, 60_000, 250);
    expect(isGreen((await colours([[0.5, 0.5]]))[0]!)).toBe(true);
    // A restart during the outage (a power cut): the page from the worker's cache, the manifest the
    // page kept, the same content on the glass; the plays queued before it are still sent.
    let created = (await screen.evaluate('window.pylonPlayer.created.slice()')) as string[];
    await screen.reload();
    await until('playing again from the kept manifest', async () => (await data('state')) === 'playing' && (await data('manifestVersion')) !== '', 60_000, 250);
    await until('green again, offline', async () => isGreen((await colours([[0.5, 0.5]]))[0]!), 30_000, 250);
    await until('a play queued after the restart', async () => ((await screen.evaluate('window.pylonPlayer.created.length')) as number) > 0, 60_000, 250);
    created = [...created, ...((await screen.evaluate('window.pylonPlayer.created.slice()')) as string[])];

    await startServer();
    await until('the queue drained', async () => (await data('pendingPlays')) === '0', 90_000, 250);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const from = day(new Date(Date.now() - 86_400_000));
    const to = day(new Date(Date.now() + 86_400_000));
    const stored = await until(
      'every play of the outage in the store',
      async () => {
        const rows = (
          await gql('query($d: [String!], $f: String!, $t: String!) { playLogs(startDate: $f, endDate: $t, deviceId: $d, limit: 4000) { id } }', {
            d: [device.id],
            f: from,
            t: to,
          })
        ).playLogs as { id: string }[];
        const ids = rows.map((r) => r.id);
        return created.every((id) => ids.includes(id)) ? ids : undefined;
      },
      90_000,
      1000,
    );
    // Exactly once: no id twice in the store.
    const mine = stored.filter((id) => created.includes(id));
    expect(new Set(mine).size).toBe(mine.length);
    expect(mine.length).toBe(created.length);
  },
  300_000,
);
