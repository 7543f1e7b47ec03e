/**
 * Emergency overrides through the scheduling subgraph's GraphQL (the directory ports as small
 * tables): targets resolved at start (tags, groups with subgroups, ids, radius), every id checked
 * against the caller's account, Overrides_Edit required and not implied by Schedules_Edit, the
 * override winning the manifest over a HIGHEST schedule and leaving it when the time box ends (with
 * override.ended announced once), acknowledgements and per-screen states.
 */
import { type DocumentStore, type PushEventType } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createSchedulingSubgraph } from '../../../app.js';
import { playerManifest } from '../../player-manifest/player-manifest.js';
import { acknowledgeOverride } from '../manage-overrides.js';
import { tableDirectories } from '../../../../test/fixtures/directories.js';

const dirs = tableDirectories();
const principal = testPrincipal;
let sg: ReturnType<typeof createSchedulingSubgraph>;
let store: DocumentStore;
let now = Date.parse('2026-05-04T10:30:00Z');
const events: { type: PushEventType; data: Record<string, unknown> }[] = [];
const run = subgraphRunner(() => sg, principal('acc-a'));

const FIELDS =
  'success error errorCode errorField override { id state startsAt endsAt target { tags } screens { device { id } state } screenCounts { pending showing ended unreachable } }';
const START = `mutation($input: OverrideInput!) { startOverride(input: $input) { ${FIELDS} } }`;
type Payload = { success: boolean; error: string | null; errorCode: string | null; errorField: string | null; override: any };

async function start(input: Record<string, unknown>, who = principal('acc-a')): Promise<Payload> {
  const r = await run(START, { input }, who);
  expect(r.errors).toBeUndefined();
  return (r.data as { startOverride: Payload }).startOverride;
}
const message = { type: 'MESSAGE', text: 'Leave the building' };
const screens = (p: Payload) => (p.override.screens as { device: { id: string } }[]).map((s) => s.device.id).sort();

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-overrides-');
  sg = createSchedulingSubgraph({
    documents: store,
    tokens: testTokens,
    ...dirs.ports,
    now: () => now,
    pushEvents: { emit: (_account, type, data) => void events.push({ type, data: data as unknown as Record<string, unknown> }) },
  });
  // Amsterdam (52.37, 4.90), Utrecht (~35 km away), Rotterdam (~57 km away); g2 is below g1.
  dirs.fleet.set('acc-a', [
    { id: 'ams', tags: ['lobby'], groupId: null, latitude: 52.37, longitude: 4.9 },
    { id: 'utr', tags: [], groupId: 'g2', latitude: 52.09, longitude: 5.12 },
    { id: 'rot', tags: ['street'], groupId: null, latitude: 51.92, longitude: 4.48 },
    { id: 'far', tags: [], groupId: null, latitude: null, longitude: null },
  ]);
  dirs.devices.set('acc-a', new Map(['ams', 'utr', 'rot', 'far'].map((id) => [id, { id, timezone: 'UTC' }])));
  dirs.groups.set(
    'acc-a',
    new Map([
      ['g1', null],
      ['g2', 'g1'],
    ]),
  );
  dirs.fleet.set('acc-b', [{ id: 'db', tags: ['lobby'], groupId: 'gb', latitude: 52.37, longitude: 4.9 }]);
  dirs.devices.set('acc-b', new Map([['db', { id: 'db', timezone: 'UTC' }]]));
  dirs.groups.set('acc-b', new Map([['gb', null]]));
  dirs.media.set('acc-a', new Set(['m1']));
  dirs.media.set('acc-b', new Set(['mb']));
  dirs.playlists.set('acc-a', new Set(['p1']));
  dirs.playlists.set('acc-b', new Set(['pb']));
  dirs.online.set('acc-a', new Set(['ams', 'utr']));
});

afterAll(() => store.close());

test('targets resolve at start: tags, groups with their subgroups, device ids, a radius (a union); screens offline are UNREACHABLE', async () => {
  const started: Payload[] = [];
  const targets = async (target: Record<string, unknown>) => {
    const p = await start({ name: 'targets', content: message, target });
    started.push(p);
    return screens(p);
  };
  expect(await targets({ tags: ['lobby'] })).toEqual(['ams']);
  expect(await targets({ groupIds: ['g1'] })).toEqual(['utr']);
  expect(await targets({ radius: { latitude: 52.37, longitude: 4.9, radiusKm: 40 } })).toEqual(['ams', 'utr']);
  expect(await targets({ all: true })).toEqual(['ams', 'far', 'rot', 'utr']);
  expect(started.at(-1)!.override.screenCounts).toEqual({ pending: 2, showing: 0, ended: 0, unreachable: 2 });
  expect(await targets({ tags: ['street'], deviceIds: ['far'] })).toEqual(['far', 'rot']);
  for (const p of started) await run('mutation($id: ID!) { cancelOverride(id: $id) { success } }', { id: p.override.id });
});

test("every id passed must be the caller's: device, group, media, playlist (another account's reads like an unknown one)", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ name: 'x', content: message, target: { deviceIds: ['ams', 'db'] } }, 'target.deviceIds'],
    [{ name: 'x', content: message, target: { groupIds: ['gb'] } }, 'target.groupIds'],
    [{ name: 'x', content: { type: 'MEDIA', mediaId: 'mb' }, target: { all: true } }, 'content.mediaId'],
    [{ name: 'x', content: { type: 'PLAYLIST', playlistId: 'pb' }, target: { all: true } }, 'content.playlistId'],
  ];
  for (const [input, field] of cases) {
    const p = await start(input);
    expect(p).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: field });
    expect(p.error).toContain('was not found');
  }
  // And account B cannot read, cancel or acknowledge A's override.
  const a = await start({ name: 'mine', content: { type: 'MEDIA', mediaId: 'm1' }, target: { tags: ['lobby'] } });
  expect(a.success).toBe(true);
  // A media item reaches the player as a one-source playlist.
  const held = (await playerManifest(sg.runtime, { accountId: 'acc-a', id: 'ams' }))!.manifest.override;
  expect(held?.content).toMatchObject({ type: 'playlist', sources: [{ id: 'm1', type: 'IMAGE', media: { id: 'm1', url: '/files/m1' } }] });
  const read = await run('query($id: ID!) { override(id: $id) { id } }', { id: a.override.id }, principal('acc-b'));
  expect(read.data).toEqual({ override: null });
  const cancel = await run('mutation($id: ID!) { cancelOverride(id: $id) { success errorCode } }', { id: a.override.id }, principal('acc-b'));
  expect(cancel.data).toEqual({ cancelOverride: { success: false, errorCode: 'NOT_FOUND' } });
  await expect(acknowledgeOverride(sg.runtime, { accountId: 'acc-b', id: 'db' }, a.override.id, { state: 'SHOWING' })).rejects.toMatchObject({
    code: 'NOT_FOUND',
  });
  await run('mutation($id: ID!) { cancelOverride(id: $id) { success } }', { id: a.override.id });
});

test('bad input names the field: no target, an end before the start, a colour, an unknown content member', async () => {
  expect(await start({ name: 'x', content: message, target: {} })).toMatchObject({ success: false, errorField: 'target' });
  expect(await start({ name: 'x', content: message, target: { all: true }, endsAt: '2026-05-04T10:00:00Z' })).toMatchObject({
    success: false,
    errorField: 'endsAt',
  });
  expect(await start({ name: 'x', content: { ...message, textColor: 'red' }, target: { all: true } })).toMatchObject({
    success: false,
    errorField: 'content.textColor',
  });
  expect(await start({ name: 'x', content: { type: 'MEDIA' }, target: { all: true } })).toMatchObject({ success: false, errorField: 'content.mediaId' });
});

test('Overrides_Edit starts and cancels; Schedules_Edit does not imply it; Schedules_View reads', async () => {
  const editor = principal('acc-a', ['Schedules_View', 'Schedules_Edit', 'Schedules_Delete', 'Devices_View', 'Files_View', 'Playlists_View']);
  const r = await run(START, { input: { name: 'x', content: message, target: { all: true } } }, editor);
  expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const list = await run('{ overrides(limit: 5) { id } }', {}, principal('acc-a', ['Schedules_View']));
  expect(list.errors).toBeUndefined();
  const nobody = await run('{ overrides { id } }', {}, principal('acc-a', ['Devices_View']));
  expect(nobody.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});

test('the override wins the manifest over a HIGHEST schedule; acknowledged per screen; the time box ends it (announced once)', async () => {
  dirs.playlists.get('acc-a')!.add('p-sched');
  const sched = await run('mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error } }', {
    i: { name: 'Top', playlistId: 'p-sched', priority: 'HIGHEST', deviceIds: ['ams'] },
  });
  expect(sched.data).toMatchObject({ createSchedule: { success: true } });
  const before = (await playerManifest(sg.runtime, { accountId: 'acc-a', id: 'ams' }))!.manifest;
  expect(before.override).toBeUndefined();
  events.length = 0;
  const o = (await start({ name: 'Boxed', content: message, target: { deviceIds: ['ams'] }, endsAt: '2026-05-04T10:40:00Z' })).override;
  expect(events.map((e) => e.type)).toEqual(['override.started']);
  const during = (await playerManifest(sg.runtime, { accountId: 'acc-a', id: 'ams' }))!.manifest;
  expect(during.override).toMatchObject({ id: o.id, ends_at: '2026-05-04T10:40:00Z', content: { type: 'message', text: 'Leave the building' } });
  expect(during.now.schedule_name).toBe('Top');
  expect(during.version).not.toBe(before.version);
  const np = await run('query { nowPlaying(deviceId: "ams") { reason override { id } schedule { name } } }', {});
  expect(np.data).toMatchObject({ nowPlaying: { override: { id: o.id }, schedule: { name: 'Top' } } });
  expect((np.data as any).nowPlaying.reason).toContain("emergency override 'Boxed'");

  expect(await acknowledgeOverride(sg.runtime, { accountId: 'acc-a', id: 'ams' }, o.id, { state: 'SHOWING' })).toMatchObject({ state: 'SHOWING' });
  // A retry changes nothing and is announced once.
  await acknowledgeOverride(sg.runtime, { accountId: 'acc-a', id: 'ams' }, o.id, { state: 'SHOWING' });
  expect(events.filter((e) => e.type === 'override.acknowledged')).toHaveLength(1);
  await expect(acknowledgeOverride(sg.runtime, { accountId: 'acc-a', id: 'ams' }, o.id, { state: 'SOON' })).rejects.toMatchObject({
    details: { field: 'state' },
  });

  now = Date.parse('2026-05-04T10:40:01Z');
  const after = (await playerManifest(sg.runtime, { accountId: 'acc-a', id: 'ams' }))!.manifest;
  expect(after.override).toBeUndefined();
  await playerManifest(sg.runtime, { accountId: 'acc-a', id: 'ams' });
  expect(events.filter((e) => e.type === 'override.ended').map((e) => e.data.reason)).toEqual(['expired']);
  const read = await run('query($id: ID!) { override(id: $id) { state screens { state } } }', { id: o.id });
  expect(read.data).toEqual({ override: { state: 'ENDED', screens: [{ state: 'SHOWING' }] } });
});
