/**
 * CAP 1.2 alert feeds through the scheduling subgraph's GraphQL, the feed served by this test on
 * loopback (allowed by the subgraph's CAP_FEED_ALLOW_LIST): an Actual Severe alert whose polygon
 * holds one screen starts an override on that screen only, once however often the feed repeats it;
 * its Cancel ends it; an Atom feed's inline and linked alerts are read, with geocode tags, Test
 * alerts and unwanted severities recorded and left alone; the poller takes a due feed once; a
 * loopback address not on the allow-list is refused and named; ids and policies are the caller's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createSchedulingSubgraph } from '../../../app.js';
import { pollDueFeeds } from '../poll-cap-feed.js';
import { tableDirectories } from '../../../../test/fixtures/directories.js';

const dirs = tableDirectories();
const principal = testPrincipal;
let sg: ReturnType<typeof createSchedulingSubgraph>;
let store: DocumentStore;
let server: Server;
let base: string;
let now = Date.parse('2026-05-04T10:30:00Z');
/** What the loopback feed serves, by path. */
const served = new Map<string, string>();
const run = subgraphRunner(() => sg, principal('acc-a'));

const FEED =
  'success error errorCode errorField capFeed { id name lastError lastPolledAt alerts { identifier outcome detail override { id state name screens { device { id } } content { text backgroundColor } } } }';
const POLL = `mutation($id: ID!) { pollCapFeed(id: $id) { success error alertsRead feedError handled { identifier msgType outcome detail override { id state } } } }`;

const iso = (t: number) => new Date(t).toISOString();
/** A CAP 1.2 alert (Amsterdam's polygon unless another area is given). */
function cap(o: {
  id: string;
  msgType?: string;
  status?: string;
  severity?: string;
  references?: string;
  area?: string;
  expires?: number;
  event?: string;
}): string {
  const area = o.area ?? '<area><areaDesc>Amsterdam</areaDesc><polygon>52.30,4.80 52.45,4.80 52.45,5.00 52.30,5.00 52.30,4.80</polygon></area>';
  return `<?xml version="1.0" encoding="UTF-8"?>
<alert xmlns="urn:oasis:names:tc:emergency:cap:1.2">
  <identifier>${o.id}</identifier><sender>warn@example.gov</sender><sent>${iso(now).replace('.000Z', '+00:00')}</sent>
  <status>${o.status ?? 'Actual'}</status><msgType>${o.msgType ?? 'Alert'}</msgType><scope>Public</scope>
  ${o.references ? `<references>${o.references}</references>` : ''}
  <info>
    <language>en-US</language><category>Met</category><event>${o.event ?? 'Storm Warning'}</event>
    <urgency>Immediate</urgency><severity>${o.severity ?? 'Severe'}</severity><certainty>Observed</certainty>
    <expires>${iso(o.expires ?? now + 3_600_000)}</expires>
    <headline>Severe storm &amp; hail</headline><instruction>Stay indoors.</instruction>
    ${area}
  </info>
</alert>`;
}

async function createFeed(input: Record<string, unknown>, who = principal('acc-a')) {
  const r = await run(`mutation($input: CapFeedInput!) { createCapFeed(input: $input) { ${FEED} } }`, { input }, who);
  expect(r.errors).toBeUndefined();
  return (r.data as { createCapFeed: any }).createCapFeed;
}
async function poll(id: string, who = principal('acc-a')) {
  const r = await run(POLL, { id }, who);
  expect(r.errors).toBeUndefined();
  return (r.data as { pollCapFeed: any }).pollCapFeed;
}
const readFeed = async (id: string, who = principal('acc-a')) =>
  (
    (
      await run(
        `query($id: ID!) { capFeed(id: $id) { id lastError alerts { identifier outcome detail override { id state name screens { device { id } } content { text backgroundColor } } } } }`,
        { id },
        who,
      )
    ).data as any
  ).capFeed;

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-cap-');
  server = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/xml' }).end(body ?? 'no such feed');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sg = createSchedulingSubgraph({ documents: store, tokens: testTokens, ...dirs.ports, now: () => now, capFeedAllowList: ['127.0.0.1'] });
  // Amsterdam (52.37, 4.90) and Rotterdam (51.92, 4.48); `utr` has no location but the geocode tag of its area.
  dirs.fleet.set('acc-a', [
    { id: 'ams', tags: ['lobby'], groupId: null, latitude: 52.37, longitude: 4.9 },
    { id: 'rot', tags: [], groupId: 'g1', latitude: 51.92, longitude: 4.48 },
    { id: 'utr', tags: ['NUTS3:NL310'], groupId: null, latitude: null, longitude: null },
  ]);
  dirs.devices.set('acc-a', new Map(['ams', 'rot', 'utr'].map((id) => [id, { id, timezone: 'UTC' }])));
  dirs.groups.set('acc-a', new Map([['g1', null]]));
  dirs.fleet.set('acc-b', [{ id: 'db', tags: [], groupId: 'gb', latitude: 52.37, longitude: 4.9 }]);
  dirs.devices.set('acc-b', new Map([['db', { id: 'db', timezone: 'UTC' }]]));
  dirs.groups.set('acc-b', new Map([['gb', null]]));
  dirs.online.set('acc-a', new Set(['ams', 'rot', 'utr']));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
});

test('an Actual Severe alert takes the screens in its polygon, once; its Cancel ends the override', async () => {
  served.set('/alert.xml', cap({ id: 'storm-1' }));
  const feed = (await createFeed({ name: 'KNMI', url: `${base}/alert.xml` })).capFeed;
  const first = await poll(feed.id);
  expect(first).toMatchObject({
    success: true,
    alertsRead: 1,
    feedError: null,
    handled: [{ identifier: 'storm-1', msgType: 'Alert', outcome: 'STARTED', detail: '1 screen' }],
  });
  const [alert] = (await readFeed(feed.id)).alerts;
  expect(alert.override).toMatchObject({ state: 'ACTIVE', name: 'Storm Warning: Severe storm & hail', screens: [{ device: { id: 'ams' } }] });
  expect(alert.override.content).toEqual({ text: 'Severe storm & hail\n\nStay indoors.', backgroundColor: '#c43e00' });
  // The feed repeats the alert on every poll: it is acted on once.
  expect((await poll(feed.id)).handled).toEqual([]);
  // The sender cancels it: the override ends on every screen.
  served.set('/alert.xml', cap({ id: 'storm-1-cancel', msgType: 'Cancel', references: `warn@example.gov,storm-1,${iso(now)}` }));
  expect((await poll(feed.id)).handled).toEqual([expect.objectContaining({ outcome: 'CANCELLED', detail: 'ended 1 override of the referenced alerts' })]);
  const after = await run('query($id: ID!) { override(id: $id) { state cancelledAt startedBy } }', { id: alert.override.id });
  expect(after.data).toEqual({ override: { state: 'CANCELLED', cancelledAt: expect.any(String), startedBy: 'cap:KNMI' } });
});

test("an Atom feed: inline and linked alerts, geocode tags, a Test alert and a Minor one left alone; an Update replaces its alert's override", async () => {
  const entry = (inner: string) => `<entry><id>x</id><title>t</title>${inner}</entry>`;
  served.set(
    '/linked.xml',
    cap({
      id: 'flood-1',
      event: 'Flood',
      area: '<area><areaDesc>Utrecht</areaDesc><geocode><valueName>NUTS3</valueName><value>NL310</value></geocode></area>',
    }),
  );
  served.set(
    '/atom.xml',
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">
      ${entry(`<link href="${base}/linked.xml"/>`)}
      ${entry(`<content type="text/xml">${cap({ id: 'drill-1', status: 'Exercise' }).replace(/<\?xml[^>]*>/, '')}</content>`)}
      ${entry(`<content type="text/xml">${cap({ id: 'minor-1', severity: 'Minor' }).replace(/<\?xml[^>]*>/, '')}</content>`)}
    </feed>`,
  );
  const feed = (await createFeed({ name: 'Atom', url: `${base}/atom.xml`, target: { deviceIds: ['utr', 'rot'] } })).capFeed;
  const report = await poll(feed.id);
  expect(report.alertsRead).toBe(3);
  const byId = Object.fromEntries(report.handled.map((h: any) => [h.identifier, h]));
  expect(byId['flood-1']).toMatchObject({ outcome: 'STARTED', detail: '1 screen' });
  expect(byId['drill-1']).toMatchObject({ outcome: 'NOT_ACTUAL' });
  expect(byId['minor-1']).toMatchObject({ outcome: 'FILTERED' });
  expect(byId['minor-1'].detail).toContain('Storm Warning (Minor)');
  // An Update of the flood alert: its override ends, the update's own starts.
  served.set(
    '/linked.xml',
    cap({
      id: 'flood-2',
      event: 'Flood',
      msgType: 'Update',
      references: `warn@example.gov,flood-1,${iso(now)}`,
      area: '<area><areaDesc>Rotterdam</areaDesc><circle>51.92,4.48 5</circle></area>',
    }),
  );
  const update = await poll(feed.id);
  expect(update.handled).toEqual([expect.objectContaining({ identifier: 'flood-2', outcome: 'STARTED' })]);
  expect(byId['flood-1'].override.id).not.toBe(update.handled[0].override.id);
  const old = await run('query($id: ID!) { override(id: $id) { state } }', { id: byId['flood-1'].override.id });
  expect(old.data).toEqual({ override: { state: 'CANCELLED' } });
  const fresh = (await readFeed(feed.id)).alerts.find((a: any) => a.identifier === 'flood-2');
  expect(fresh.override.screens).toEqual([{ device: { id: 'rot' } }]);
  await run('mutation($id: ID!) { cancelOverride(id: $id) { success } }', { id: fresh.override.id });
});

test('the poller takes a due feed once; an expired alert and a screenless area are recorded, not acted on', async () => {
  served.set('/due.xml', cap({ id: 'old-1', expires: now - 60_000 }));
  const feed = (await createFeed({ name: 'Due', url: `${base}/due.xml`, pollSeconds: 60 })).capFeed;
  // Every feed created above is due too (created at `now`, the first poll at once).
  expect(await pollDueFeeds(sg.runtime)).toBeGreaterThanOrEqual(1);
  expect(await pollDueFeeds(sg.runtime)).toBe(0);
  expect((await readFeed(feed.id)).alerts).toEqual([expect.objectContaining({ identifier: 'old-1', outcome: 'EXPIRED' })]);
  served.set('/due.xml', cap({ id: 'far-1', area: '<area><areaDesc>Paris</areaDesc><circle>48.85,2.35 10</circle></area>' }));
  now += 61_000;
  expect(await pollDueFeeds(sg.runtime)).toBeGreaterThanOrEqual(1);
  expect((await readFeed(feed.id)).alerts[0]).toMatchObject({ identifier: 'far-1', outcome: 'NO_SCREENS', detail: 'no screen of the feed is in Paris' });
});

test('a feed that cannot be read says why: a refused address, a 404, not XML, an XML bomb', async () => {
  const port = (server.address() as AddressInfo).port;
  served.set('/bomb.xml', '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><alert>&lol;</alert>');
  served.set('/html', '<html><body>hello</body></html>');
  const cases: [string, RegExp][] = [
    [`http://[::1]:${port}/alert.xml`, /private or reserved.*CAP_FEED_ALLOW_LIST/],
    [`${base}/missing.xml`, /HTTP 404/],
    [`${base}/html`, /neither a CAP alert nor an Atom or RSS feed/],
    [`${base}/bomb.xml`, /DTD or entities/],
  ];
  for (const [url, message] of cases) {
    const feed = (await createFeed({ name: 'bad', url })).capFeed;
    const r = await poll(feed.id);
    expect([url, r.success, r.feedError]).toEqual([url, true, expect.stringMatching(message)]);
    expect((await readFeed(feed.id)).lastError).toMatch(message);
    await run('mutation($id: ID!) { deleteCapFeed(id: $id) { success } }', { id: feed.id });
  }
});

test("bad input names the field; ids and feeds are the caller's; Overrides_Edit configures, Schedules_View reads", async () => {
  expect(await createFeed({ name: 'x', url: 'ftp://example.com/feed' })).toMatchObject({ success: false, errorField: 'url' });
  expect(await createFeed({ name: 'x', url: `${base}/a`, pollSeconds: 5 })).toMatchObject({ success: false, errorField: 'pollSeconds' });
  expect(await createFeed({ name: 'x', url: `${base}/a`, target: { deviceIds: ['db'] } })).toMatchObject({ success: false, errorField: 'target.deviceIds' });
  expect(await createFeed({ name: 'x', url: `${base}/a`, target: { groupIds: ['gb'] } })).toMatchObject({ success: false, errorField: 'target.groupIds' });
  const bad = await run('mutation { createCapFeed(input: { name: "x", url: "http://example.com", severities: [Loud] }) { success } }', {});
  expect(bad.errors?.[0]?.message).toContain('Loud');
  const mine = (await createFeed({ name: 'mine', url: `${base}/alert.xml` })).capFeed;
  // Account B: A's feed is unknown to every operation.
  expect(await readFeed(mine.id, principal('acc-b'))).toBeNull();
  expect((await poll(mine.id, principal('acc-b'))).success).toBe(false);
  const upd = await run('mutation($id: ID!) { updateCapFeed(id: $id, input: { enabled: false }) { success errorCode } }', { id: mine.id }, principal('acc-b'));
  expect(upd.data).toEqual({ updateCapFeed: { success: false, errorCode: 'NOT_FOUND' } });
  const del = await run('mutation($id: ID!) { deleteCapFeed(id: $id) { success errorCode } }', { id: mine.id }, principal('acc-b'));
  expect(del.data).toEqual({ deleteCapFeed: { success: false, errorCode: 'NOT_FOUND' } });
  expect(((await run('{ capFeeds { id } }', {}, principal('acc-b'))).data as any).capFeeds).toEqual([]);
  // Schedules_Edit does not configure feeds; Schedules_View reads them.
  const editor = principal('acc-a', ['Schedules_View', 'Schedules_Edit']);
  const refused = await run('mutation { createCapFeed(input: { name: "x", url: "http://example.com" }) { success } }', {}, editor);
  expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const listed = await run('{ capFeeds { name } }', {}, principal('acc-a', ['Schedules_View']));
  expect((listed.data as any).capFeeds.map((f: any) => f.name)).toContain('mine');
  const changed = await run(
    'mutation($id: ID!) { updateCapFeed(id: $id, input: { enabled: false, severities: [Extreme] }) { success capFeed { enabled severities } } }',
    { id: mine.id },
  );
  expect(changed.data).toEqual({ updateCapFeed: { success: true, capFeed: { enabled: false, severities: ['Extreme'] } } });
});
