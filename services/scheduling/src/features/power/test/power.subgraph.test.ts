/**
 * Power schedules through the scheduling subgraph's GraphQL (the directory ports as small tables):
 * ids checked against the caller's account with the field named, Schedules_Edit to write, the
 * display's state and nowPlaying's reason at night, the manifest's on-windows, and the display
 * edges sent once each from the stored due-time set, across a restart of the subgraph.
 */
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { INTERNAL_TOKEN_HEADER, type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { tableDirectories } from '../../../../test/fixtures/directories.js';
import { createSchedulingSubgraph } from '../../../app.js';
import { playerManifest } from '../../player-manifest/player-manifest.js';
import { offWindows } from '../manage-power.js';
import { sendDueEdges } from '../power-edges.js';
import { createOffWindowsHttp } from '../http/off-windows-http.js';

// Monday 2026-05-04 12:00 in Amsterdam (UTC+2); the commands the edges sent.
let now = Date.parse('2026-05-04T10:00:00Z');
const sent: string[] = [];
const dirs = tableDirectories();
let [sg, store, dir] = [undefined as unknown as ReturnType<typeof createSchedulingSubgraph>, undefined as unknown as DocumentStore, ''];
const principal = testPrincipal;
const run = subgraphRunner(() => sg, principal('acc-a'));
const build = () =>
  createSchedulingSubgraph({
    documents: store,
    tokens: testTokens,
    ...dirs.ports,
    devices: { ...dirs.ports.devices, display: async (account, ids, command) => void sent.push(...ids.map((id) => `${account}:${id}:${command}`)) },
    now: () => now,
  });

const SET = 'mutation($i: PowerScheduleInput!) { setPowerSchedule(input: $i) { success error errorCode errorField powerSchedule { id scope target } } }';
const POWER = 'query($d: ID!, $at: String) { devicePower(deviceId: $d, at: $at) { displayOn until timezone reason schedule { id } } }';
const weekdays = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'];
const office = { windows: [{ weekdays, on: '07:00', off: '19:00' }] };

async function set(i: Record<string, unknown>, who = principal('acc-a')) {
  const r = await run(SET, { i }, who);
  expect(r.errors).toBeUndefined();
  return (r.data as { setPowerSchedule: { success: boolean; errorField: string | null; powerSchedule: { id: string } | null } }).setPowerSchedule;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-power-'));
  store = await createLmdbDocumentStore({ path: dir });
  sg = build();
  dirs.devices.set(
    'acc-a',
    new Map([
      ['ams', { id: 'ams', timezone: 'Europe/Amsterdam' }],
      ['ny', { id: 'ny', timezone: null }],
      ['free', { id: 'free', timezone: null }],
    ]),
  );
  dirs.fleet.set('acc-a', [
    { id: 'ams', tags: ['lobby'], groupId: 'g2', latitude: null, longitude: null },
    { id: 'ny', tags: ['lobby'], groupId: null, latitude: null, longitude: null },
    { id: 'free', tags: [], groupId: null, latitude: null, longitude: null },
  ]);
  dirs.groups.set(
    'acc-a',
    new Map([
      ['g1', null],
      ['g2', 'g1'],
    ]),
  );
  dirs.zones.set('acc-a', 'America/New_York');
  dirs.devices.set('acc-b', new Map([['db', { id: 'db', timezone: 'UTC' }]]));
  dirs.groups.set('acc-b', new Map([['gb', null]]));
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

test("bad input names the field; another account's device or group reads like an unknown one; Schedules_Edit writes", async () => {
  expect(await set({ target: { deviceId: 'db' }, ...office })).toMatchObject({ success: false, errorField: 'target.deviceId' });
  expect(await set({ target: { groupId: 'gb' }, ...office })).toMatchObject({ success: false, errorField: 'target.groupId' });
  expect(await set({ target: { tag: 'x' }, windows: [{ weekdays, on: '7:00', off: '19:00' }] })).toMatchObject({ errorField: 'windows[0].on' });
  expect(await set({ target: { tag: 'x' }, ...office, exceptions: [{ date: '2026-13-01' }] })).toMatchObject({ errorField: 'exceptions[0].date' });
  const bad = await run(POWER, { d: 'ams', at: 'tonight' });
  expect(bad.errors?.[0]?.extensions?.field ?? bad.errors?.[0]?.message).toBeTruthy();
  const viewer = await run(SET, { i: { target: { tag: 'x' }, ...office } }, principal('acc-a', ['Schedules_View', 'Devices_View']));
  expect(viewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const reader = await run('{ powerSchedules { id } }', {}, principal('acc-a', ['Devices_View']));
  expect(reader.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});

test('group over tag; the device zone, else the account zone; nowPlaying and the manifest say the display is off at night', async () => {
  const group = await set({ target: { groupId: 'g1' }, ...office });
  const tag = await set({ target: { tag: 'lobby' }, windows: [{ weekdays, on: '09:00', off: '17:00' }] });
  expect(group.success && tag.success).toBe(true);
  // ams is in g2 below g1: the group's 07:00-19:00 Amsterdam time; ny has only the tag, read in the account's New York time.
  const power = async (d: string, at: string) => ((await run(POWER, { d, at })).data as { devicePower: Record<string, unknown> | null }).devicePower;
  expect(await power('ams', '2026-05-04T18:00:00Z')).toMatchObject({
    displayOn: false,
    until: '2026-05-05T05:00:00Z',
    timezone: 'Europe/Amsterdam',
    reason: 'display off by power schedule until 07:00',
    schedule: { id: group.powerSchedule!.id },
  });
  expect(await power('ny', '2026-05-04T14:00:00Z')).toMatchObject({ displayOn: true, until: '2026-05-04T21:00:00Z', timezone: 'America/New_York' });
  expect(await power('free', '2026-05-04T02:00:00Z')).toMatchObject({ displayOn: true, schedule: null, reason: 'no power schedule: display always on' });
  expect(await power('db', '2026-05-04T02:00:00Z')).toBeNull();
  const np = await run('query($d: ID!, $at: String) { nowPlaying(deviceId: $d, at: $at) { reason } }', { d: 'ams', at: '2026-05-04T23:30:00Z' });
  expect(np.data).toEqual({ nowPlaying: { reason: 'display off by power schedule until 07:00' } });

  const m = (await playerManifest(sg.runtime, { accountId: 'acc-a', id: 'ams' }))!.manifest;
  expect(m.power).toMatchObject({
    schedule_id: group.powerSchedule!.id,
    timezone: 'Europe/Amsterdam',
    from: '2026-05-04T00:00:00Z',
    until: '2026-05-07T00:00:00Z',
  });
  expect(m.power!.on.slice(0, 2)).toEqual([
    { from: '2026-05-04T05:00:00Z', to: '2026-05-04T17:00:00Z' },
    { from: '2026-05-05T05:00:00Z', to: '2026-05-05T17:00:00Z' },
  ]);
  expect((await playerManifest(sg.runtime, { accountId: 'acc-a', id: 'free' }))!.manifest.power).toBeUndefined();
  // Analytics' uptime leaves out these off-hours (Monday, UTC): ams off before 07:00 and after 19:00 Amsterdam time.
  const off = await offWindows(sg.runtime, principal('acc-a'), Date.parse('2026-05-04T00:00:00Z'), Date.parse('2026-05-05T00:00:00Z'));
  expect([...off.keys()].sort()).toEqual(['ams', 'ny']);
  expect(off.get('ams')!.map(([a, b]) => [new Date(a).toISOString(), new Date(b).toISOString()])).toEqual([
    ['2026-05-04T00:00:00.000Z', '2026-05-04T05:00:00.000Z'],
    ['2026-05-04T17:00:00.000Z', '2026-05-05T00:00:00.000Z'],
  ]);
  // The same over the internal route the distributed analytics process asks, as the caller: A's
  // windows to A; nothing of A's to B; refused unsigned or with a bad range.
  const server = express().use(createOffWindowsHttp(sg.runtime, testTokens)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const ask = async (who: string | null, range = `from=${Date.parse('2026-05-04T00:00:00Z')}&to=${Date.parse('2026-05-05T00:00:00Z')}`) => {
      const headers: Record<string, string> = who ? { [INTERNAL_TOKEN_HEADER]: await testTokens.sign(principal(who)) } : {};
      const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/internal/power/off-windows?${range}`, { headers });
      return [r.status, await r.json()];
    };
    expect(await ask('acc-a')).toEqual([200, { devices: Object.fromEntries(off) }]);
    expect(await ask('acc-b')).toEqual([200, { devices: {} }]);
    expect((await ask(null))[0]).toBe(401);
    expect((await ask('acc-a', 'from=5&to=1'))[0]).toBe(400);
  } finally {
    server.close();
  }

  // Account B reads none of it and deletes nothing of A's.
  const foreign = await run('query($id: ID!) { powerSchedule(id: $id) { id } }', { id: group.powerSchedule!.id }, principal('acc-b'));
  expect(foreign.data).toEqual({ powerSchedule: null });
  const del = await run('mutation($id: ID!) { deletePowerSchedule(id: $id) { success errorCode } }', { id: tag.powerSchedule!.id }, principal('acc-b'));
  expect(del.data).toEqual({ deletePowerSchedule: { success: false, errorCode: 'NOT_FOUND' } });
});

test('display_off and display_on at the edges, each sent once, from the stored edges across a restart; a deleted schedule turns the display back on', async () => {
  sent.length = 0;
  // 12:00 in Amsterdam: on; nothing due yet.
  expect(await sendDueEdges(sg.runtime)).toEqual({ on: 0, off: 0 });
  // 19:00:05 in Amsterdam: ams goes off; ny came on at 09:00 New York time (13:00Z), due since then.
  now = Date.parse('2026-05-04T17:00:05Z');
  expect(await sendDueEdges(sg.runtime)).toEqual({ on: 1, off: 1 });
  expect(sent.sort()).toEqual(['acc-a:ams:display_off', 'acc-a:ny:display_on']);
  expect(await sendDueEdges(sg.runtime)).toEqual({ on: 0, off: 0 });
  // A new process over the same store (a restart) sends ny's 17:00 New York edge and, next morning, ams's.
  sg = build();
  now = Date.parse('2026-05-05T05:00:01Z');
  await sendDueEdges(sg.runtime);
  expect(sent.slice(2)).toEqual(['acc-a:ny:display_off', 'acc-a:ams:display_on']);
  // Deleting the group's schedule at night turns ams on at once (no schedule: always on).
  now = Date.parse('2026-05-05T20:00:00Z');
  await sendDueEdges(sg.runtime);
  sent.length = 0;
  const schedules = ((await run('{ powerSchedules { id scope } }', {})).data as { powerSchedules: { id: string; scope: string }[] }).powerSchedules;
  const group = schedules.find((s) => s.scope === 'GROUP')!;
  const r = await run('mutation($id: ID!) { deletePowerSchedule(id: $id) { success } }', { id: group.id });
  expect(r.data).toEqual({ deletePowerSchedule: { success: true } });
  // ams falls back to the lobby tag (09:00-17:00 Amsterdam time): still off at 22:00, so nothing is sent.
  expect(sent).toEqual([]);
});
