/**
 * Distributed mode, the web player's path through the processes: identity, devices, content,
 * scheduling, datatables and the gateway role each run as their own process over HTTP (shared
 * embedded store; Redis for the cache and pub/sub ports whenever it answers).
 *
 * - Same origin: the gateway serves /play and forwards /player/* to the devices process, so a
 *   screen at the gateway pairs (claimDevice through the gateway's GraphQL), long-polls its pings
 *   and reads its manifest there; the caller's address reaches the devices process.
 * - Menu boards: a template module's dataTableId is checked by the content process against the
 *   datatables process (another account's table is refused), and the devices process reads a
 *   screen's rows from the datatables process (HTTP adapter) instead of answering 503; a row edit
 *   changes the ETag and the rows.
 * - Emergency overrides across processes: the scheduling process resolves the target against the
 *   devices process (HTTP directory), the devices process serves the override in the manifest it
 *   asks the scheduling process for, and forwards the screen's acknowledgement to it (internal
 *   route); a CAP feed served on loopback starts one and its Cancel ends it.
 * - A bulk job of the devices process assigns a schedule through the scheduling process's internal
 *   routes, as the job's caller (another account's schedule refused).
 * - A browser at the gateway's /play (when chromium is installed) pairs and shows the menu board.
 * Readiness: each process gets 90 s to answer /healthz (six processes start at once on a busy
 * 2-core machine); waits poll with stated limits.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { createAccount, createApiKey, createUser } from '@pylon/identity';
import { CHROMIUM, haveChromium } from './chromium.js';
import { freePort, Processes, REDIS_URL, redisAnswers, seedIdentity } from './processes.js';

type Json = Record<string, any>;
const secret = randomBytes(32).toString('hex');
const run = randomBytes(4).toString('hex');
const keys: Record<'a' | 'b', string> = { a: `dist-player-a-${run}-0123456789`, b: `dist-player-b-${run}-0123456789` };
let procs: Processes;
let gateway: string;
let redis = false;

beforeAll(async () => {
  procs = await Processes.inTempDir('dist-player', { secret, logLevel: 'warn' });
  redis = await redisAnswers(REDIS_URL);
  if (!redis && process.env.CI) throw new Error(`Redis at ${REDIS_URL} is needed under CI`);

  await seedIdentity(procs.dataDir, secret, async ({ repo }) => {
    for (const acc of ['a', 'b'] as const) {
      const account = await createAccount(repo, { id: `dist-player-${acc}-${run}`, name: `Player ${acc}`, timezone: 'UTC' });
      const owner = await createUser(repo, { accountId: account.id, username: `owner-${acc}`, roles: ['Owner', 'API'] });
      await createApiKey(repo, { accountId: account.id, userId: owner.id, name: 'test', value: keys[acc] });
    }
  });

  // One free port per process (and one nobody listens on: analytics is not started).
  const ports: number[] = [];
  for (let n = 0; n < 7; n++) ports.push(await freePort());
  const [pi, pd, pc, ps, pt, pg, dead] = ports as [number, number, number, number, number, number, number];
  const at = (p: number) => `http://127.0.0.1:${p}`;
  const shared = {
    ...(redis ? { CACHE_DRIVER: 'redis', REDIS_URL } : {}),
    IDENTITY_URL: at(pi),
    DEVICES_URL: at(pd),
    CONTENT_URL: at(pc),
    SCHEDULING_URL: at(ps),
    DATATABLES_URL: at(pt),
    ANALYTICS_URL: at(dead),
  };
  await Promise.all([
    procs.start('services/identity/src/main.ts', { ...shared, OAUTH_ISSUER: at(pi) }, pi, 90_000),
    procs.start('services/devices/src/main.ts', shared, pd, 90_000),
    procs.start('services/content/src/main.ts', shared, pc, 90_000),
    // The CAP feed test serves its feed on loopback.
    procs.start('services/scheduling/src/main.ts', { ...shared, CAP_FEED_ALLOW_LIST: '127.0.0.1' }, ps, 90_000),
    procs.start('services/datatables/src/main.ts', shared, pt, 90_000),
  ]);
  gateway = await procs.start('gateway/src/gateway.main.ts', { ...shared, SUBGRAPH_TIMEOUT_MS: '10000' }, pg, 90_000);
}, 240_000);

afterAll(async () => {
  await procs?.dispose();
});

/** GraphQL through the gateway with account `acc`'s API key. */
async function gql(query: string, variables: Json = {}, acc: 'a' | 'b' = 'a'): Promise<Json> {
  const res = await fetch(`${gateway}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': keys[acc] },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Json; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data!;
}
const player = (path: string, init: RequestInit = {}) => fetch(`${gateway}/player${path}`, init);
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

let screen: { id: string; key: string };
let tableId: string;
let rowId: string;

test("a screen pairs through the gateway's /player routes and its claimDevice", async () => {
  const requested = await player('/pairings', json({ screen: '1920x1080' }));
  expect(requested.status).toBe(201);
  const { code, secret: pairingSecret } = (await requested.json()) as Json;
  expect((await (await player(`/pairings/${pairingSecret}`)).json()) as Json).toMatchObject({ status: 'pending' });
  const claimed = await gql('mutation($c: String!) { claimDevice(code: $c, name: "Gateway screen") { success error device { id registrationKey } } }', {
    c: code,
  });
  expect(claimed.claimDevice).toMatchObject({ success: true });
  screen = { id: claimed.claimDevice.device.id, key: claimed.claimDevice.device.registrationKey };
  expect((await (await player(`/pairings/${pairingSecret}`)).json()) as Json).toMatchObject({ status: 'claimed', registration_key: screen.key });
  // An unknown key is the devices process's 401, passed through.
  expect((await player('/not-a-key/manifest')).status).toBe(401);
}, 60_000);

test('a long-poll ping through the gateway answers when a command is queued', async () => {
  // The first ping answers at once; the second waits for the command.
  expect((await player(`/${screen.key}/ping`, json({}))).status).toBe(200);
  const started = Date.now();
  const waiting = player(`/${screen.key}/ping?wait=20`, json({}));
  await new Promise((r) => setTimeout(r, 1000));
  const sent = await gql('mutation($d: String!) { sendDeviceCommand(deviceId: $d, commands: [{ command: "refresh" }]) { success } }', { d: screen.id });
  expect(sent.sendDeviceCommand.success).toBe(true);
  const answer = await waiting;
  expect(answer.status).toBe(200);
  expect(((await answer.json()) as Json).commands).toEqual([expect.objectContaining({ command: 'refresh' })]);
  // Woken by the command, well before the 20 s wait ran out.
  expect(Date.now() - started).toBeLessThan(15_000);
}, 60_000);

test("a menu board: the content process checks the table with the datatables process; the devices process serves the screen's rows from it", async () => {
  const t = await gql(
    'mutation { createDataTable(input: { name: "Menu", columns: [{ name: "Dish", key: "dish", type: TEXT }, { name: "Code", key: "code", type: HIDDEN }] }) { success table { id } } }',
  );
  tableId = t.createDataTable.table.id;
  rowId = (
    await gql('mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { row { id } } }', { i: { tableId, data: { dish: 'Soup', code: 's1' } } })
  ).createDataTableRow.row.id;
  const CREATE = `mutation($d: String) { createTemplate(input: { name: "Board", width: 1600, height: 900, modules: [
    { name: "menu", left: 0, top: 0, width: 1600, height: 900, dataTableId: $d }] }) { success error errorField template { id } } }`;
  // Account B cannot show A's table.
  expect((await gql(CREATE, { d: tableId }, 'b')).createTemplate).toMatchObject({ success: false, errorField: 'modules[0].dataTableId' });
  expect((await gql(CREATE, { d: 'no-such-table' })).createTemplate).toMatchObject({ success: false, errorField: 'modules[0].dataTableId' });
  const tpl = await gql(CREATE, { d: tableId });
  expect(tpl.createTemplate).toMatchObject({ success: true });
  const s = await gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error } }', {
    i: { name: 'Board', type: 'TEMPLATE', templateId: tpl.createTemplate.template.id, deviceIds: [screen.id] },
  });
  expect(s.createSchedule.success).toBe(true);

  const manifest = (await (await player(`/${screen.key}/manifest`)).json()) as Json;
  expect(manifest.now.content.modules).toEqual([expect.objectContaining({ data_table_id: tableId })]);
  const rows = await player(`/${screen.key}/datatables/${tableId}/rows`);
  expect(rows.status).toBe(200);
  const etag = rows.headers.get('etag')!;
  const body = (await rows.json()) as Json;
  expect(body).toMatchObject({ table_id: tableId, columns: [{ key: 'dish' }], rows: [{ dish: 'Soup' }] });
  expect(JSON.stringify(body)).not.toContain('s1');
  expect((await player(`/${screen.key}/datatables/${tableId}/rows`, { headers: { 'if-none-match': etag } })).status).toBe(304);
  await gql('mutation($i: UpdateDataTableRowInput!) { updateDataTableRow(input: $i) { success } }', { i: { tableId, rowId, data: { dish: 'Stew' } } });
  const edited = await player(`/${screen.key}/datatables/${tableId}/rows`, { headers: { 'if-none-match': etag } });
  expect(edited.status).toBe(200);
  expect(edited.headers.get('etag')).not.toBe(etag);
  expect(((await edited.json()) as Json).rows).toEqual([{ dish: 'Stew' }]);
  // Account B's table is not A's screen's: 404.
  const bTable = (await gql('mutation { createDataTable(input: { name: "B", columns: [{ name: "X", key: "x", type: TEXT }] }) { table { id } } }', {}, 'b'))
    .createDataTable.table.id;
  expect((await player(`/${screen.key}/datatables/${bTable}/rows`)).status).toBe(404);
}, 90_000);

test('an emergency override across processes: targeted, in the manifest, acknowledged through the gateway, cancelled', async () => {
  const FIELDS = 'success error override { id state screens { device { id } state } }';
  const started = await gql(
    `mutation($d: [String!]) { startOverride(input: { name: "Evacuate", content: { type: MESSAGE, text: "Leave now" }, target: { deviceIds: $d } }) { ${FIELDS} } }`,
    { d: [screen.id] },
  );
  expect(started.startOverride).toMatchObject({ success: true, override: { state: 'ACTIVE', screens: [{ device: { id: screen.id } }] } });
  const id = started.startOverride.override.id as string;
  // Another account's screen is unknown to A's override (the scheduling process asks the devices process).
  const foreign = await gql(
    `mutation($d: [String!]) { startOverride(input: { name: "x", content: { type: MESSAGE, text: "x" }, target: { deviceIds: $d } }) { ${FIELDS} } }`,
    { d: [screen.id] },
    'b',
  );
  expect(foreign.startOverride).toMatchObject({ success: false });
  const manifest = async () => ((await (await player(`/${screen.key}/manifest`)).json()) as Json).override ?? null;
  expect(await manifest()).toMatchObject({ id, content: { type: 'message', text: 'Leave now' } });
  const ack = await player(`/${screen.key}/overrides/${id}/ack`, json({ state: 'SHOWING' }));
  expect([ack.status, ((await ack.json()) as Json).state]).toEqual([200, 'SHOWING']);
  expect((await gql(`query($id: ID!) { override(id: $id) { screens { state shownAt } } }`, { id })).override.screens).toEqual([
    { state: 'SHOWING', shownAt: expect.any(String) },
  ]);
  expect((await gql(`mutation($id: ID!) { cancelOverride(id: $id) { ${FIELDS} } }`, { id })).cancelOverride).toMatchObject({
    success: true,
    override: { state: 'CANCELLED' },
  });
  expect(await manifest()).toBeNull();
}, 60_000);

test("a bulk job of the devices process assigns a schedule through the scheduling process's internal routes", async () => {
  const playlist = await gql('mutation { createPlaylist(input: { name: "Bulk loop" }) { success playlist { id } } }');
  const made = await gql(
    'mutation($p: String) { createSchedule(input: { name: "Bulk schedule", type: PLAYLIST, playlistId: $p }) { success error schedule { id } } }',
    {
      p: playlist.createPlaylist.playlist.id,
    },
  );
  expect(made.createSchedule).toMatchObject({ success: true });
  const scheduleId = made.createSchedule.schedule.id as string;
  const START = 'mutation($i: DeviceBulkJobInput!) { startDeviceBulkJob(input: $i) { success error errorCode jobId } }';
  const started = await gql(START, { i: { selector: { ids: [screen.id] }, action: 'ASSIGN_SCHEDULE', scheduleId } });
  expect(started.startDeviceBulkJob).toMatchObject({ success: true, jobId: expect.any(String) });
  const end = Date.now() + 45_000;
  let state = '';
  while (Date.now() < end && !['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(state)) {
    state = (await gql('query($id: ID!) { job(id: $id) { state } }', { id: started.startDeviceBulkJob.jobId })).job.state;
    if (state !== 'SUCCEEDED') await new Promise((r) => setTimeout(r, 250));
  }
  expect(state).toBe('SUCCEEDED');
  expect((await gql('query($id: [String!]) { schedule(id: $id) { devices { id } } }', { id: [scheduleId] })).schedule).toEqual([
    { devices: [{ id: screen.id }] },
  ]);
  // Another account's schedule is unknown to A's job: refused before it starts.
  const foreign = await gql('mutation { createSchedule(input: { name: "B schedule", type: PLAYLIST }) { schedule { id } } }', {}, 'b');
  const refused = await gql(START, {
    i: { selector: { ids: [screen.id] }, action: 'ASSIGN_SCHEDULE', scheduleId: foreign.createSchedule.schedule?.id ?? 'none' },
  });
  expect(refused.startDeviceBulkJob).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  // The screen goes back to its menu board for the browser test below.
  expect((await gql('mutation($id: ID!) { deleteSchedule(id: $id) { success } }', { id: scheduleId })).deleteSchedule.success).toBe(true);
}, 90_000);

test('a CAP feed served on loopback starts an override through the scheduling process, and its Cancel ends it', async () => {
  let alert = '';
  const feedServer = createServer((_, res) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(alert));
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  try {
    const cap = (identifier: string, msgType: string, references = '') =>
      `<alert xmlns="urn:oasis:names:tc:emergency:cap:1.2"><identifier>${identifier}</identifier><sender>warn@example.gov</sender>` +
      `<sent>${new Date().toISOString()}</sent><status>Actual</status><msgType>${msgType}</msgType><scope>Public</scope>` +
      `${references ? `<references>${references}</references>` : ''}<info><event>Flood</event><urgency>Immediate</urgency>` +
      `<severity>Extreme</severity><certainty>Observed</certainty><headline>Flood warning</headline></info></alert>`;
    alert = cap('flood-1', 'Alert');
    const url = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/cap.xml`;
    const created = await gql(
      'mutation($u: String!, $d: [String!]) { createCapFeed(input: { name: "Floods", url: $u, enabled: false, target: { deviceIds: $d } }) { success error capFeed { id } } }',
      { u: url, d: [screen.id] },
    );
    expect(created.createCapFeed).toMatchObject({ success: true });
    const feed = created.createCapFeed.capFeed.id as string;
    const POLL = 'mutation($id: ID!) { pollCapFeed(id: $id) { success feedError handled { identifier outcome override { id state startedBy } } } }';
    const first = (await gql(POLL, { id: feed })).pollCapFeed;
    expect(first).toMatchObject({
      success: true,
      feedError: null,
      handled: [{ identifier: 'flood-1', outcome: 'STARTED', override: { state: 'ACTIVE', startedBy: 'cap:Floods' } }],
    });
    alert = cap('flood-1-cancel', 'Cancel', `warn@example.gov,flood-1,${new Date().toISOString()}`);
    expect((await gql(POLL, { id: feed })).pollCapFeed.handled).toEqual([expect.objectContaining({ outcome: 'CANCELLED' })]);
    const after = await gql('query($id: ID!) { override(id: $id) { state } }', { id: first.handled[0].override.id });
    expect(after.override.state).toBe('CANCELLED');
  } finally {
    await new Promise((resolve) => feedServer.close(resolve));
  }
}, 60_000);

test("a row edit in the datatables process ends a screen's long-poll on the devices process (Redis pub/sub)", async () => {
  if (!redis) return console.warn(`skipped: no Redis at ${REDIS_URL}; table changes cross processes only through Redis`);
  // Through the gateway, as the page does: the ping names the table it shows.
  const started = Date.now();
  const waiting = player(`/${screen.key}/ping?wait=20&tables=${tableId}`, json({}));
  await new Promise((r) => setTimeout(r, 1000));
  await gql('mutation($i: UpdateDataTableRowInput!) { updateDataTableRow(input: $i) { success } }', {
    i: { tableId, rowId, data: { dish: 'Stew of the day' } },
  });
  const answer = await waiting;
  expect(answer.status).toBe(200);
  // Woken by the announcement, well before the 20 s wait ran out.
  expect(Date.now() - started).toBeLessThan(15_000);
}, 60_000);

(haveChromium ? test : test.skip)(
  "a browser at the gateway's /play shows the menu board (one origin: page, player API and rows)",
  async () => {
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
      const page = await (await browser.newContext({ viewport: { width: 640, height: 360 } })).newPage();
      await page.goto(`${gateway}/play?key=${encodeURIComponent(screen.key)}`);
      // Polled with evaluate (the page's CSP forbids the string eval waitForFunction uses); 60 s each.
      const until = async (what: string, expr: string) => {
        const end = Date.now() + 60_000;
        while (!(await page.evaluate(expr).catch(() => false))) {
          if (Date.now() > end) throw new Error(`timed out after 60 s waiting for ${what}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      await until('the screen to play', "document.body.dataset.state === 'playing'");
      await until('the menu board', "(document.querySelector('.scene:last-child .table')?.innerText || '').includes('Stew')");
    } finally {
      await browser?.close();
    }
  },
  150_000,
);
