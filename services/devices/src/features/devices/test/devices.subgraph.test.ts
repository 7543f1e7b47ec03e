import { InternalTokens, type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createDevicesSubgraph } from '../../../app.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const principal = testPrincipal;

let store: DocumentStore;
let sg: ReturnType<typeof createDevicesSubgraph>;

const run = subgraphRunner(() => sg, principal('acc-a'));

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-devices-');
  sg = createDevicesSubgraph({
    documents: store,
    tokens: testTokens,
    onlineWindowSeconds: 600,
    now: () => NOW,
    organizations: { belongsTo: async () => false },
  });
  const root = await sg.repo.groupTree.addGroup('acc-a', { name: 'Root', parentId: null });
  const child = await sg.repo.groupTree.addGroup('acc-a', { name: 'Child', parentId: root.id });
  const ping = (ageMs: number, cpu: number) => ({
    cpuUsage: cpu,
    memoryUsage: 50,
    diskUsage: 20,
    playerVersion: '1.0',
    ipAddress: '10.0.0.1',
    timestamp: new Date(NOW - ageMs).toISOString(),
  });
  const base = { deviceType: { id: 'dt1', name: 'Player', manufacturer: 'ACME' }, location: null, orgId: null };
  await sg.repo.addDevice('acc-a', {
    ...base,
    id: 'd1',
    name: 'Alpha',
    tags: ['vip'],
    pingData: ping(60_000, 90),
    groupId: root.id,
    groupName: 'Root',
    registrationKey: 'rk1',
  });
  await sg.repo.addDevice('acc-a', {
    ...base,
    id: 'd2',
    name: 'Bravo',
    tags: [],
    pingData: ping(3_600_000, 10),
    groupId: child.id,
    groupName: 'Child',
    registrationKey: 'rk2',
  });
  await sg.repo.addDevice('acc-a', {
    ...base,
    id: 'd3',
    name: 'Charlie',
    tags: ['vip', 'hall'],
    pingData: null,
    groupId: child.id,
    groupName: 'Child',
    orgId: 'org-1',
    registrationKey: 'rk3',
  });
  await sg.repo.addDevice('acc-b', {
    ...base,
    id: 'd9',
    name: 'Other account',
    tags: [],
    pingData: ping(0, 1),
    groupId: null,
    groupName: null,
    registrationKey: 'rk9',
  });
});

afterAll(() => store.close());

const names = (r: { data?: unknown }) => ((r.data as { device: { name: string }[] }).device ?? []).map((d) => d.name);

test('lists the caller’s devices sorted by name with computed isOnline', async () => {
  const r = await run('{ device { id name isOnline tags deviceType { name manufacturer } pingData { cpuUsage timestamp } } }');
  expect(r.errors).toBeUndefined();
  const list = (r.data as { device: { name: string; isOnline: boolean; pingData: { timestamp: string } | null }[] }).device;
  expect(list.map((d) => [d.name, d.isOnline])).toEqual([
    ['Alpha', true],
    ['Bravo', false],
    ['Charlie', false],
  ]);
  expect(list[0]!.pingData!.timestamp).toBe('2026-06-01T11:59:00Z');
});

test('arguments filter: id, groupName, tag, orgId, deviceTypeId', async () => {
  expect(names(await run('{ device(id: ["d1", "d3"]) { name } }'))).toEqual(['Alpha', 'Charlie']);
  expect(names(await run('{ device(groupName: ["Child"]) { name } }'))).toEqual(['Bravo', 'Charlie']);
  expect(names(await run('{ device(tag: ["hall"]) { name } }'))).toEqual(['Charlie']);
  expect(names(await run('{ device(orgId: "org-1") { name } }'))).toEqual(['Charlie']);
  expect(names(await run('{ device(deviceTypeId: ["nope"]) { name } }'))).toEqual([]);
});

test('where, order and limit', async () => {
  expect(names(await run('{ device(where: { isOnline: { eq: true } }) { name } }'))).toEqual(['Alpha']);
  expect(names(await run('{ device(where: { isOnline: { eq: false } }) { name } }'))).toEqual(['Bravo', 'Charlie']);
  expect(names(await run('{ device(where: { pingData: { cpuUsage: { gt: 50 } } }) { name } }'))).toEqual(['Alpha']);
  expect(names(await run('{ device(where: { or: [{ name: { startsWith: "Ch" } }, { tags: { some: { eq: "vip" } } }] }) { name } }'))).toEqual([
    'Alpha',
    'Charlie',
  ]);
  expect(names(await run('{ device(order: [{ name: DESC }], limit: 2) { name } }'))).toEqual(['Charlie', 'Bravo']);
  expect(names(await run('{ device(order: [{ name: ASC }], limit: 2, offset: 2) { name } }'))).toEqual(['Charlie']);
});

test('an unknown where operator and an excessive limit are refused', async () => {
  const unknownOp = await run('{ device(where: { name: { like: "A" } }) { name } }');
  expect(unknownOp.errors?.[0]?.message).toMatch(/like/);
  const big = await run('{ device(limit: 99999999) { name } }');
  expect(big.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
});

test('another account sees only its own devices', async () => {
  expect(names(await run('{ device { name } }', {}, principal('acc-b')))).toEqual(['Other account']);
  expect(names(await run('{ device(id: ["d1"]) { name } }', {}, principal('acc-b')))).toEqual([]);
});

test('Devices_View is required', async () => {
  const r = await run('{ device { name } }', {}, principal('acc-a', ['Files_View']));
  expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});

test('a forged or missing internal token is refused', async () => {
  await expect(sg.createContext(undefined)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  const forged = await new InternalTokens('f'.repeat(32)).sign(principal('acc-a'));
  await expect(sg.createContext(forged)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
});

test('device groups: flat with levels and counts, and as a tree', async () => {
  const flat = await run('{ deviceGroups { name count level } }');
  expect((flat.data as { deviceGroups: unknown[] }).deviceGroups).toEqual([
    { name: 'Root', count: 1, level: 0 },
    { name: 'Child', count: 2, level: 1 },
  ]);
  const tree = await run('{ deviceGroups(tree: true) { name children { name count level children { name } } } }');
  expect((tree.data as { deviceGroups: unknown[] }).deviceGroups).toEqual([{ name: 'Root', children: [{ name: 'Child', count: 2, level: 1, children: [] }] }]);
});

test('device groups: where and order (kit group rules), a bad field named, other accounts see none', async () => {
  const r = await run('{ deviceGroups(where: { name: { startsWith: "Ch" } }, order: [{ name: DESC }]) { name count level } }');
  expect((r.data as { deviceGroups: unknown[] }).deviceGroups).toEqual([{ name: 'Child', count: 2, level: 1 }]);
  const desc = await run('{ deviceGroups(order: [{ name: ASC }]) { name } }');
  expect((desc.data as { deviceGroups: unknown[] }).deviceGroups).toEqual([{ name: 'Child' }, { name: 'Root' }]);
  const bad = await run('{ deviceGroups(order: [{ parentId: ASC }], where: { name: { gt: "a" } }) { name } }');
  // The schema refuses it before the resolver (the kit rules refuse it too: test/unit/group-rules.test.ts).
  expect(bad.errors?.[0]?.message).toMatch(/"gt"/);
  const other = await run('{ deviceGroups(where: { name: { eq: "Child" } }) { name } }', {}, principal('acc-b'));
  expect((other.data as { deviceGroups: unknown[] }).deviceGroups).toEqual([]);
});

test('display commands are seeded with the known commands', async () => {
  const r = await run('{ displayCommands { name command arg } }');
  const cmds = (r.data as { displayCommands: { command: string }[] }).displayCommands.map((c) => c.command);
  expect(cmds).toEqual(['restart', 'reboot', 'screenshot', 'refresh', 'display_on', 'display_off', 'volume', 'clear_cache', 'update']);
});

test('_entities resolves Device references in the caller’s account only', async () => {
  const q = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Device { id name } } }';
  const mine = await run(q, {
    r: [
      { __typename: 'Device', id: 'd2' },
      { __typename: 'Device', id: 'd9' },
    ],
  });
  expect(mine.data).toEqual({ _entities: [{ id: 'd2', name: 'Bravo' }, null] });
});
