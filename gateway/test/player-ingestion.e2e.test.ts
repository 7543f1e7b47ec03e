/**
 * Player ingestion end to end through the all-in-one server (`npm start`'s composition): play
 * logs posted by a screen reach the analytics store through the stream and the ingest consumer,
 * a retried batch is stored once, the media file's name is kept after the file is deleted, an
 * unknown file is kept, and each account reads only its own screens' records.
 */
import { createAccount, createApiKey, createUser, type IdentityService } from '@pylon/identity';
import type { ContentRepository } from '@pylon/content';
import { insertMedia, startHarness, type Harness } from './harness.js';

type Json = Record<string, any>;
let h: Harness;
let keyB: string;
let content: ContentRepository;

const A = 'demo-account';
const post = async (key: string, kind: string, body: unknown) => {
  const res = await fetch(`${h.baseUrl}/player/${key}/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
};
const gql = async (query: string, variables: Json = {}, key?: string) => {
  const r = await h.gql(query, { variables, ...(key ? { key } : {}) });
  expect(r.body.errors).toBeUndefined();
  return r.body.data as Json;
};
const newDevice = async (name: string, key?: string): Promise<{ id: string; registrationKey: string }> =>
  (await gql('mutation($n: String!) { createDevice(input: { name: $n }) { device { id registrationKey } } }', { n: name }, key)).createDevice.device;
const addMedia = (account: string, name: string) => insertMedia(h, account, { name, fileName: `${name}.png`, mimeType: 'image/png' });
const PLAYS =
  'query($d: [String!]) { playLogs(startDate: "2000-01-01", endDate: "2100-01-01", deviceId: $d, limit: 1000) { id deviceId fileId fileName duration } }';
/** Polls until `n` play logs of the device are queryable (acknowledged-to-queryable is well under this). */
async function playsOf(deviceId: string, n: number, key?: string): Promise<Json[]> {
  let rows: Json[] = [];
  for (let i = 0; i < 150; i++) {
    rows = (await gql(PLAYS, { d: [deviceId] }, key)).playLogs ?? [];
    if (rows.length >= n) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return rows;
}
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

beforeAll(async () => {
  h = await startHarness();
  content = (h.subgraphs.content as unknown as { repo: ContentRepository }).repo;
  const identity = h.subgraphs.identity as unknown as IdentityService;
  await createAccount(identity.repo, { id: 'ingest-b', name: 'Ingest B', timezone: 'UTC' });
  const owner = await createUser(identity.repo, { accountId: 'ingest-b', username: 'owner@ingest-b.example', roles: ['Owner', 'API'] });
  keyB = (await createApiKey(identity.repo, { accountId: 'ingest-b', userId: owner.id, name: 'b' })).value;
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

test("the player API is served first (http-app's early routers) with the app's request id, security headers and its own 404", async () => {
  const screen = await newDevice('Ingest headers');
  const res = await fetch(`${h.baseUrl}/player/${screen.registrationKey}/playlogs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'early-1' },
    body: JSON.stringify([{ timestamp: ago(30), file_id: 'f', duration: 1, type: 'image' }]),
  });
  expect(res.status).toBe(202);
  expect(Object.fromEntries(['x-request-id', 'cache-control', 'x-content-type-options', 'x-frame-options'].map((k) => [k, res.headers.get(k)]))).toEqual({
    'x-request-id': 'early-1',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
  });
  // Counted under its route, as every route is (the player router answers plain batch URLs ahead of its other layers).
  expect(await (await fetch(`${h.baseUrl}/metrics`)).text()).toMatch(
    /^http_request_duration_seconds_count\{[^}]*route="\/player\/:registrationKey\/playlogs"[^}]*status="202"[^}]*\} [1-9]/m,
  );
  const missing = await fetch(`${h.baseUrl}/player/${screen.registrationKey}/nothing`, { method: 'POST' });
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as Json).error.message).toBe('the player API has no POST /player/{registrationKey}/nothing');
});

test('a retried batch is stored once; the file name survives the file; unknown files are kept', async () => {
  const screen = await newDevice('Ingest lobby');
  const fileId = await addMedia(A, 'Spring sale');
  const batch = [
    { id: 'lobby-1', timestamp: ago(120), file_id: fileId, duration: 10, type: 'image' },
    { timestamp: ago(110), file_id: fileId, duration: 12.5, type: 'image' },
    { timestamp: ago(100), file_id: 'no-such-file', duration: 5, type: 'video' },
  ];
  const first = await post(screen.registrationKey, 'playlogs', batch);
  expect(first).toMatchObject({ status: 202, body: { accepted: 3, unknown_file_ids: ['no-such-file'] } });
  // The player timed out and sends the same batch again.
  expect((await post(screen.registrationKey, 'playlogs', batch)).body.ids).toEqual(first.body.ids);
  const rows = await playsOf(screen.id, 3);
  await new Promise((r) => setTimeout(r, 1000)); // a duplicate, if any, would have landed by now
  const again = await playsOf(screen.id, 3);
  expect(again).toHaveLength(3);
  expect(rows.map((r) => [r.fileId, r.fileName, r.duration])).toEqual([
    [fileId, 'Spring sale', 10],
    [fileId, 'Spring sale', 12.5],
    ['no-such-file', null, 5],
  ]);

  // The pipeline's metrics: what the publisher held, what the ingest wrote, the consumer's lag.
  const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
  expect(metrics).toMatch(/pylon_telemetry_publisher_records\{[^}]*topic="telemetry.plays"[^}]*outcome="published"[^}]*\} [1-9]/);
  expect(metrics).toMatch(/pylon_telemetry_publisher_records\{[^}]*topic="telemetry.plays"[^}]*outcome="lost"[^}]*\} 0/);
  expect(metrics).toMatch(/pylon_telemetry_ingest_out_total\{[^}]*table="play_logs"[^}]*\} [1-9]/);
  expect(metrics).toMatch(/pylon_telemetry_lag\{[^}]*topic="telemetry.plays"/);
  expect(((await (await fetch(`${h.baseUrl}/readyz`)).json()) as Json).checks).toMatchObject({ consumer: 'ok', stream: 'ok' });

  // Statistics keep the name after the file is gone.
  await content.media.remove(A, fileId);
  expect((await playsOf(screen.id, 3)).filter((r) => r.fileName === 'Spring sale')).toHaveLength(2);
}, 120_000);

test("each account reads only its own screens' records; another account's file is unknown to a screen", async () => {
  const fileA = await addMedia(A, 'Account A only');
  const screenB = await newDevice('B screen', keyB);
  const r = await post(screenB.registrationKey, 'playlogs', [{ id: 'b-1', timestamp: ago(30), file_id: fileA, duration: 7, type: 'image' }]);
  expect(r.body.unknown_file_ids).toEqual([fileA]);
  const rowsB = await playsOf(screenB.id, 1, keyB);
  expect(rowsB).toEqual([expect.objectContaining({ id: 'b-1', fileId: fileA, fileName: null })]);
  // Account A's key asking for B's screen sees nothing.
  expect((await gql(PLAYS, { d: [screenB.id] })).playLogs).toEqual([]);
}, 120_000);
