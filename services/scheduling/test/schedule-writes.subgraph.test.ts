import { type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createSchedulingSubgraph } from '../src/app.js';
import { tableDirectories } from './fixtures/directories.js';

const principal = testPrincipal;
let store: DocumentStore;
let sg: ReturnType<typeof createSchedulingSubgraph>;
const dirs = tableDirectories();
const now = Date.parse('2026-05-04T10:30:00Z'); // a Monday
const run = subgraphRunner(() => sg, principal('acc-a'));

const FIELDS =
  'success error errorCode errorField schedule { id name type startDate endDate startTime endTime monday saturday priority playlistId templateId devices { id } groupId groupName version }';
const CREATE = `mutation($input: ScheduleInput!) { createSchedule(input: $input) { ${FIELDS} } }`;
type Payload = {
  success: boolean;
  error: string | null;
  errorCode: string | null;
  errorField: string | null;
  schedule: Record<string, unknown> & { id: string; version: number };
};

async function mutate(query: string, variables: Record<string, unknown>, who = principal('acc-a')): Promise<Payload> {
  const r = await run(query, variables, who);
  expect(r.errors).toBeUndefined();
  return Object.values(r.data as Record<string, Payload>)[0]!;
}
const create = (input: Record<string, unknown>, who = principal('acc-a')) => mutate(CREATE, { input }, who);

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-scheduling-w-');
  sg = createSchedulingSubgraph({ documents: store, tokens: testTokens, ...dirs.ports, now: () => now });
  dirs.devices.set(
    'acc-a',
    new Map([
      ['d1', { id: 'd1', timezone: 'Europe/Amsterdam' }],
      ['d2', { id: 'd2', timezone: null }],
    ]),
  );
  dirs.devices.set('acc-b', new Map([['db', { id: 'db', timezone: null }]]));
  dirs.playlists.set('acc-a', new Set(['p1', 'p2']));
  dirs.playlists.set('acc-b', new Set(['pb']));
  dirs.templates.set('acc-a', new Set(['t1']));
  dirs.zones.set('acc-a', 'America/New_York');
  dirs.orgs.set('acc-a', new Set(['org-1']));
});

afterAll(() => store.close());

test('create, read, replace, patch and delete a schedule', async () => {
  const c = await create({
    name: 'Mornings',
    playlistId: 'p1',
    startDate: '2026-05-01',
    endDate: '2026-06-30T00:00:00Z',
    startTime: '08:00',
    endTime: '12:30',
    saturday: false,
    sunday: false,
    deviceIds: ['d1', 'd1', 'd2'],
    orgId: 'org-1',
  });
  expect(c).toMatchObject({
    success: true,
    schedule: {
      name: 'Mornings',
      type: 'PLAYLIST',
      startDate: '2026-05-01T00:00:00Z',
      endDate: '2026-06-30T00:00:00Z',
      startTime: '08:00:00',
      endTime: '12:30:00',
      monday: true,
      saturday: false,
      priority: 'NORMAL',
      devices: [{ id: 'd1' }, { id: 'd2' }],
      version: 1,
    },
  });
  const id = c.schedule.id;
  const u = await mutate(`mutation($id: ID!, $input: ScheduleInput!) { updateSchedule(id: $id, input: $input) { ${FIELDS} } }`, {
    id,
    input: { name: 'Templates', type: 'TEMPLATE', templateId: 't1', priority: 'HIGHEST', expectedVersion: 1 },
  });
  expect(u).toMatchObject({
    success: true,
    schedule: { name: 'Templates', type: 'TEMPLATE', templateId: 't1', playlistId: null, priority: 'HIGHEST', startTime: null, devices: [], version: 2 },
  });
  const stale = await mutate(`mutation($id: ID!, $input: ScheduleInput!) { updateSchedule(id: $id, input: $input) { ${FIELDS} } }`, {
    id,
    input: { name: 'x', type: 'TEMPLATE', templateId: 't1', expectedVersion: 1 },
  });
  expect(stale).toMatchObject({ success: false, errorCode: 'VERSION_CONFLICT' });
  const p = await mutate(`mutation($id: ID!, $ops: [ScheduleJsonPatchOperationInput!]!) { patchSchedule(id: $id, operations: $ops) { ${FIELDS} } }`, {
    id,
    ops: [
      { op: 'replace', path: '/name', value: 'Patched' },
      { op: 'add', path: '/deviceIds/-', value: 'd1' },
      { op: 'replace', path: '/priority', value: 'LOW' },
    ],
  });
  expect(p).toMatchObject({ success: true, schedule: { name: 'Patched', priority: 'LOW', devices: [{ id: 'd1' }], templateId: 't1' } });
  const badPatch = await mutate(
    `mutation($id: ID!, $ops: [ScheduleJsonPatchOperationInput!]!) { patchSchedule(id: $id, operations: $ops) { success errorField } }`,
    { id, ops: [{ op: 'replace', path: '/__proto__/x', value: 1 }] },
  );
  expect(badPatch).toMatchObject({ success: false, errorField: 'operations[0].path' });
  const d = await mutate('mutation($id: ID!) { deleteSchedule(id: $id) { success scheduleId } }', { id });
  expect(d).toMatchObject({ success: true, scheduleId: id });
  expect(await mutate('mutation($id: ID!) { deleteSchedule(id: $id) { success errorCode } }', { id })).toMatchObject({
    success: false,
    errorCode: 'NOT_FOUND',
  });
});

test.each([
  [{ playlistId: 'p1', startDate: '2026-05-10', endDate: '2026-05-09' }, 'endDate'],
  [{ playlistId: 'p1', startDate: '2026-02-30' }, 'startDate'],
  [{ playlistId: 'p1', startTime: '8:00' }, 'startTime'],
  [{ playlistId: 'p1', endTime: '25:00' }, 'endTime'],
  [{ playlistId: 'p1', startTime: '09:00', endTime: '09:00' }, 'endTime'],
  [{}, 'playlistId'],
  [{ playlistId: 'nope' }, 'playlistId'],
  [{ playlistId: 'pb' }, 'playlistId'], // another account's playlist
  [{ type: 'TEMPLATE' }, 'templateId'],
  [{ type: 'TEMPLATE', templateId: 'nope' }, 'templateId'],
  [{ type: 'TEMPLATE', templateId: 't1', playlistId: 'p1' }, 'playlistId'],
  [{ type: 'CAMPAIGN' }, 'type'],
  [{ playlistId: 'p1', deviceIds: ['d1', 'db'] }, 'deviceIds'], // another account's device
  [{ playlistId: 'p1', groupId: 'nope' }, 'groupId'],
  [{ playlistId: 'p1', orgId: 'org-9' }, 'orgId'],
  [{ playlistId: 'p1', name: '' }, 'name'],
])('refused: %j names %s', async (input, field) => {
  const r = await run(CREATE, { input: { name: 'x', ...input } });
  const payload = (r.data as { createSchedule: Payload }).createSchedule;
  expect(payload).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: field });
});

test('schedule groups: create, rename (copied onto schedules), delete moves schedules up', async () => {
  const g = await mutate('mutation($input: ScheduleGroupInput!) { createScheduleGroup(input: $input) { success group { id name level } } }', {
    input: { name: 'Lobby' },
  });
  const groupId = (g as unknown as { group: { id: string } }).group.id;
  const s = await create({ name: 'Grouped', playlistId: 'p1', groupId });
  expect(s.schedule).toMatchObject({ groupId, groupName: 'Lobby' });
  await mutate('mutation($id: ID!, $input: ScheduleGroupInput!) { updateScheduleGroup(id: $id, input: $input) { success } }', {
    id: groupId,
    input: { name: 'Hall' },
  });
  const [read] = (await run('query($id: [String!]) { schedule(id: $id) { groupName } }', { id: [s.schedule.id] })).data!.schedule as { groupName: string }[];
  expect(read!.groupName).toBe('Hall');
  expect(await mutate('mutation($id: ID!) { deleteScheduleGroup(id: $id) { success movedItems } }', { id: groupId })).toMatchObject({
    success: true,
    movedItems: 1,
  });
  expect(await mutate('mutation($id: ID!) { deleteScheduleGroup(id: $id) { success errorCode } }', { id: groupId }, principal('acc-b'))).toMatchObject({
    success: false,
    errorCode: 'NOT_FOUND',
  });
});

test('nowPlaying: winner, content, every schedule explained, next change; in the device zone or the account’s', async () => {
  const base = await create({ name: 'All day', playlistId: 'p2', priority: 'LOW', deviceIds: ['d1', 'd2'] });
  const lunch = await create({
    name: 'Lunch',
    type: 'TEMPLATE',
    templateId: 't1',
    startTime: '12:00',
    endTime: '13:00',
    priority: 'HIGH',
    deviceIds: ['d1', 'd2'],
  });
  const q = `query($d: ID!, $at: String) { nowPlaying(deviceId: $d, at: $at) { device { id } at timezone localTime schedule { id name } content { type playlist { id } template { id } }
    considered { schedule { id } matched verdict reason windowStart windowEnd } nextChange } }`;
  // 10:30Z is 12:30 in Amsterdam (CEST): lunch plays on d1.
  const r = (await run(q, { d: 'd1', at: '2026-05-04T10:30:00Z' })).data!.nowPlaying as Record<string, unknown>;
  expect(r).toMatchObject({
    device: { id: 'd1' },
    at: '2026-05-04T10:30:00Z',
    timezone: 'Europe/Amsterdam',
    localTime: '2026-05-04T12:30:00',
    schedule: { id: lunch.schedule.id },
    content: { type: 'TEMPLATE', template: { id: 't1' }, playlist: null },
    nextChange: '2026-05-04T11:00:00Z',
  });
  expect((r.considered as { verdict: string; matched: boolean }[]).map((c) => [c.verdict, c.matched])).toEqual([
    ['PLAYING', true],
    ['OUTRANKED', false],
  ]);
  // d2 has no zone: the account's (New York, 06:30): the all-day playlist; default `at` is the clock.
  const n = (await run(q, { d: 'd2' })).data!.nowPlaying as Record<string, unknown>;
  expect(n).toMatchObject({
    timezone: 'America/New_York',
    schedule: { id: base.schedule.id },
    content: { type: 'PLAYLIST', playlist: { id: 'p2' } },
    nextChange: '2026-05-04T16:00:00Z',
  });
  // The playlist is deleted: the schedule is explained as CONTENT_MISSING and does not win.
  dirs.playlists.get('acc-a')!.delete('p2');
  const m = (await run(q, { d: 'd2' })).data!.nowPlaying as { schedule: unknown; considered: { verdict: string }[] };
  expect(m.schedule).toBeNull();
  expect(m.considered.map((c) => c.verdict)).toEqual(['OUTSIDE_HOURS', 'CONTENT_MISSING']);
  dirs.playlists.get('acc-a')!.add('p2');
  const t = (
    await run(
      'query($d: ID!) { deviceTimeline(deviceId: $d, from: "2026-05-04T00:00:00Z", to: "2026-05-05T00:00:00Z") { timezone segments { from to schedule { name } } } }',
      { d: 'd1' },
    )
  ).data!.deviceTimeline as { segments: unknown[] };
  expect(t.segments).toEqual([
    { from: '2026-05-04T00:00:00Z', to: '2026-05-04T10:00:00Z', schedule: { name: 'All day' } },
    { from: '2026-05-04T10:00:00Z', to: '2026-05-04T11:00:00Z', schedule: { name: 'Lunch' } },
    { from: '2026-05-04T11:00:00Z', to: '2026-05-05T00:00:00Z', schedule: { name: 'All day' } },
  ]);
});

test('nowPlaying refuses unknown and foreign devices and bad instants, naming the argument', async () => {
  const q = 'query($d: ID!, $at: String) { nowPlaying(deviceId: $d, at: $at) { timezone } }';
  expect((await run(q, { d: 'db' })).errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', field: 'deviceId' });
  expect((await run(q, { d: 'd1', at: 'yesterday' })).errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'at' });
  const tl = 'query($d: ID!, $from: String!, $to: String!) { deviceTimeline(deviceId: $d, from: $from, to: $to) { timezone } }';
  expect((await run(tl, { d: 'd1', from: '2026-05-04T00:00:00Z', to: '2026-05-03T00:00:00Z' })).errors?.[0]?.extensions).toMatchObject({ field: 'to' });
  expect((await run(tl, { d: 'd1', from: '2026-01-01T00:00:00Z', to: '2026-05-03T00:00:00Z' })).errors?.[0]?.extensions).toMatchObject({ field: 'to' });
});

test('writes need Schedules_Edit, deletes Schedules_Delete', async () => {
  const viewer = principal('acc-a', ['Schedules_View']);
  const r = await run(CREATE, { input: { name: 'x', playlistId: 'p1' } }, viewer);
  expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const del = await run('mutation { deleteSchedule(id: "x") { success } }', {}, principal('acc-a', ['Schedules_View', 'Schedules_Edit']));
  expect(del.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});
