import type { DocumentStore } from '@pylon/kit';
import { policyAnswers, subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createSchedulingSubgraph } from '../src/app.js';
import { SCHEDULE_PRIORITIES, type ScheduleRecord } from '../src/domain/schedule.js';
import { tableDirectories } from './fixtures/directories.js';
import { subgraphLister } from '@pylon/kit/testing';

const principal = testPrincipal;

let store: DocumentStore;
let sg: ReturnType<typeof createSchedulingSubgraph>;

const run = subgraphRunner(() => sg, principal('acc-a'));

const list = subgraphLister(run, principal('acc-a'));

const names = async (query: string, who = principal('acc-a')) => (await list<{ name: string }>('schedule', query, {}, who)).map((s) => s.name);

const weekdays = { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: false, sunday: false };
const schedule = (over: Partial<ScheduleRecord> & { id: string; name: string }): ScheduleRecord & { id: string } => ({
  type: 'PLAYLIST',
  startDate: '2026-01-01T00:00:00.000Z',
  endDate: null,
  startTime: '08:00:00',
  endTime: '18:00:00',
  ...weekdays,
  priority: SCHEDULE_PRIORITIES.NORMAL,
  templateId: null,
  playlistId: 'p1',
  deviceIds: [],
  groupId: null,
  groupName: null,
  orgId: null,
  tags: [],
  ...over,
});

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-scheduling-');
  sg = createSchedulingSubgraph({ documents: store, tokens: testTokens, ...tableDirectories().ports });
  const { repo } = sg;
  const stores = await repo.groups.insert('acc-a', { name: 'Stores', parentId: null });
  const north = await repo.groups.insert('acc-a', { name: 'North', parentId: stores.id });
  await repo.schedules.insert(
    'acc-a',
    schedule({
      id: 's1',
      name: 'Breakfast',
      deviceIds: ['d1', 'd2'],
      priority: SCHEDULE_PRIORITIES.HIGH,
      tags: ['food'],
      groupId: stores.id,
      groupName: 'Stores',
    }),
  );
  await repo.schedules.insert(
    'acc-a',
    schedule({
      id: 's2',
      name: 'Clearance',
      type: 'TEMPLATE',
      playlistId: null,
      templateId: 't1',
      deviceIds: ['d2'],
      priority: SCHEDULE_PRIORITIES.LOWEST,
      saturday: true,
      groupId: north.id,
      groupName: 'North',
      orgId: 'org-1',
    }),
  );
  await repo.schedules.insert(
    'acc-a',
    schedule({
      id: 's3',
      name: 'Anniversary',
      type: 'CAMPAIGN',
      playlistId: null,
      startDate: '2026-03-01T00:00:00.000Z',
      endDate: '2026-03-31T23:59:59.000Z',
      priority: SCHEDULE_PRIORITIES.HIGHEST,
      tags: ['food', 'promo'],
      groupId: north.id,
      groupName: 'North',
    }),
  );
  await repo.schedules.insert('acc-b', schedule({ id: 's9', name: 'Other account', deviceIds: ['d1'] }));
});

afterAll(() => store.close());

test('lists the caller’s schedules sorted by name with every field', async () => {
  const items = await list<Record<string, unknown>>(
    'schedule',
    `{ schedule { id name type startDate endDate startTime endTime
    monday tuesday wednesday thursday friday saturday sunday priority templateId playlistId devices { id } groupId groupName orgId tags createdOn } }`,
  );
  expect(items.map((s) => s.name)).toEqual(['Anniversary', 'Breakfast', 'Clearance']);
  expect(items[1]).toMatchObject({
    id: 's1',
    type: 'PLAYLIST',
    startDate: '2026-01-01T00:00:00Z',
    endDate: null,
    startTime: '08:00:00',
    endTime: '18:00:00',
    monday: true,
    saturday: false,
    sunday: false,
    priority: 'HIGH',
    templateId: null,
    playlistId: 'p1',
    devices: [{ id: 'd1' }, { id: 'd2' }],
    groupName: 'Stores',
    tags: ['food'],
  });
  expect(items[0]).toMatchObject({ type: 'CAMPAIGN', priority: 'HIGHEST', endDate: '2026-03-31T23:59:59Z', devices: [] });
  expect(items[2]).toMatchObject({ type: 'TEMPLATE', priority: 'LOWEST', templateId: 't1', orgId: 'org-1' });
  expect(items[0]!.createdOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});

test('arguments filter: id, groupId, groupName, deviceId, orgId, tag', async () => {
  const [clearance] = await list<{ groupId: string }>('schedule', '{ schedule(id: ["s2"]) { groupId } }');
  expect(await names('{ schedule(id: ["s1", "s3"]) { name } }')).toEqual(['Anniversary', 'Breakfast']);
  expect(await names(`{ schedule(groupId: ["${clearance!.groupId}"]) { name } }`)).toEqual(['Anniversary', 'Clearance']);
  expect(await names('{ schedule(groupName: ["Stores"]) { name } }')).toEqual(['Breakfast']);
  expect(await names('{ schedule(deviceId: "d2") { name } }')).toEqual(['Breakfast', 'Clearance']);
  expect(await names('{ schedule(deviceId: "d1") { name } }')).toEqual(['Breakfast']);
  expect(await names('{ schedule(deviceId: "d404") { name } }')).toEqual([]);
  expect(await names('{ schedule(orgId: "org-1") { name } }')).toEqual(['Clearance']);
  expect(await names('{ schedule(tag: ["promo"]) { name } }')).toEqual(['Anniversary']);
});

test('where on enums, weekdays and dates; order by priority follows its meaning; limit and offset', async () => {
  expect(await names('{ schedule(where: { type: { eq: TEMPLATE } }) { name } }')).toEqual(['Clearance']);
  expect(await names('{ schedule(where: { priority: { in: [HIGH, HIGHEST] } }) { name } }')).toEqual(['Anniversary', 'Breakfast']);
  expect(await names('{ schedule(where: { priority: { neq: NORMAL }, saturday: { eq: true } }) { name } }')).toEqual(['Clearance']);
  expect(await names('{ schedule(where: { startDate: { gte: "2026-02-01T00:00:00.000Z" } }) { name } }')).toEqual(['Anniversary']);
  expect(await names('{ schedule(order: [{ priority: DESC }]) { name } }')).toEqual(['Anniversary', 'Breakfast', 'Clearance']);
  expect(await names('{ schedule(order: [{ priority: ASC }], limit: 2) { name } }')).toEqual(['Clearance', 'Breakfast']);
  expect(await names('{ schedule(limit: 1, offset: 2) { name } }')).toEqual(['Clearance']);
});

test('a limit above the maximum is refused', async () => {
  const r = await run('{ schedule(limit: 1001) { name } }');
  expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
});

test('schedule groups: flat with levels and counts, and as a tree', async () => {
  expect(await list('scheduleGroups', '{ scheduleGroups { name count level } }')).toEqual([
    { name: 'Stores', count: 1, level: 0 },
    { name: 'North', count: 2, level: 1 },
  ]);
  expect(await list('scheduleGroups', '{ scheduleGroups(tree: true) { name children { name count children { name } } } }')).toEqual([
    { name: 'Stores', children: [{ name: 'North', count: 2, children: [] }] },
  ]);
});

test('schedule groups: where and order through the kit group rules', async () => {
  expect(await list('scheduleGroups', '{ scheduleGroups(where: { parentId: { neq: null } }) { name level } }')).toEqual([{ name: 'North', level: 1 }]);
  expect(await list('scheduleGroups', '{ scheduleGroups(order: [{ name: ASC }]) { name } }')).toEqual([{ name: 'North' }, { name: 'Stores' }]);
  const r = await run('{ scheduleGroups(where: { nope: { eq: "x" } }) { name } }');
  expect(r.errors?.[0]?.message).toMatch(/nope/);
  expect(await list('scheduleGroups', '{ scheduleGroups(where: { name: { eq: "North" } }) { name } }', {}, principal('acc-b'))).toEqual([]);
});

test('Schedules_View is required', async () => {
  expect(await policyAnswers(run, 'Schedules_View', ['{ schedule { name } }', '{ scheduleGroups { name } }'])).toEqual({
    without: ['FORBIDDEN', 'FORBIDDEN'],
    alone: [true, true],
  });
});

test('another account sees only its own schedules and groups', async () => {
  const b = principal('acc-b');
  expect(await names('{ schedule { name } }', b)).toEqual(['Other account']);
  expect(await names('{ schedule(id: ["s1"]) { name } }', b)).toEqual([]);
  expect(await names('{ schedule(deviceId: "d2") { name } }', b)).toEqual([]);
  expect(await list('scheduleGroups', '{ scheduleGroups { name } }', {}, b)).toEqual([]);
});

test('devices are references by key only; the devices subgraph resolves their fields', async () => {
  const sdl = await run('{ _service { sdl } }');
  expect((sdl.data as { _service: { sdl: string } })._service.sdl).toMatch(/type Device\s+@key\(fields: "id", resolvable: false\)\s*\{\s*id: ID!\s*\}/);
});

describe('scheduleCount (REST X-Total-Count)', () => {
  /** The count and the listing's length for the same arguments, as `who`. */
  async function both(args: string, who = principal('acc-a')) {
    const listed = (await list('schedule', `{ schedule(${args ? `${args}, ` : ''}limit: 1000) { id } }`, {}, who)).length;
    const counted = await run(`{ scheduleCount${args ? `(${args})` : ''} }`, {}, who);
    return { count: (counted.data as { scheduleCount: number } | null)?.scheduleCount, listed };
  }

  test('counts the caller’s schedules only, with the listing’s filters', async () => {
    expect(await both('')).toEqual({ count: 3, listed: 3 });
    expect(await both('', principal('acc-b'))).toEqual({ count: 1, listed: 1 });
    // d1 is in a schedule of each account: only the caller's is counted.
    expect(await both('deviceId: "d1"')).toEqual({ count: 1, listed: 1 });
    expect(await both('id: ["s1", "s9"]')).toEqual({ count: 1, listed: 1 });
    expect(await both('groupName: ["North"]')).toEqual({ count: 2, listed: 2 });
    expect(await both('tag: ["food"]')).toEqual({ count: 2, listed: 2 });
    expect(await both('orgId: "org-1"')).toEqual({ count: 1, listed: 1 });
    const paged = await run('{ scheduleCount schedule(limit: 1, offset: 2) { id } }');
    expect(paged.data).toMatchObject({ scheduleCount: 3 });
    const refused = await run('{ scheduleCount }', {}, principal('acc-a', []));
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
