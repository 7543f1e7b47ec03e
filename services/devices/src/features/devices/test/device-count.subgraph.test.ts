/** Query.deviceCount: the same filters as Query.device, no limit or offset, the caller's account only (REST X-Total-Count). */
import { principal, startFixture, type Fixture } from '../../../../test/fixtures/subgraph.js';

let f: Fixture;
const NOW = Date.parse('2026-06-01T12:00:00Z');

beforeAll(async () => {
  f = await startFixture({ start: NOW });
  const ping = (ageMs: number) => ({
    cpuUsage: 5,
    memoryUsage: 5,
    diskUsage: 5,
    playerVersion: '1',
    ipAddress: '10.0.0.1',
    timestamp: new Date(NOW - ageMs).toISOString(),
  });
  const base = { deviceType: { id: 'dt1', name: 'Player', manufacturer: 'ACME' }, location: null, orgId: null, groupId: null, groupName: null };
  const add = (tenant: string, id: string, extra: Record<string, unknown>) =>
    f.sg.repo.addDevice(tenant, { ...base, id, name: `Device ${id}`, tags: [], pingData: null, registrationKey: `rk-${id}`, ...extra } as never);
  await add('acc-a', 'a1', { tags: ['vip'], pingData: ping(60_000), groupId: 'g1', groupName: 'Hall' });
  await add('acc-a', 'a2', { pingData: ping(3_600_000), groupId: 'g1', groupName: 'Hall' });
  await add('acc-a', 'a3', { tags: ['vip'], orgId: 'org-1', deviceType: { id: 'dt2', name: 'Kiosk', manufacturer: 'ACME' } });
  for (let i = 0; i < 5; i++) await add('acc-a', `a-more-${i}`, {});
  // Another account's devices match every filter below and must never be counted.
  for (let i = 0; i < 4; i++) await add('acc-b', `b${i}`, { tags: ['vip'], pingData: ping(0), groupId: 'g1', groupName: 'Hall', orgId: 'org-1' });
});
afterAll(() => f.close());

const DOC = `query($id: [String!], $groupId: [String!], $groupName: [String!], $deviceTypeId: [String!], $orgId: String, $tag: [String!], $where: DeviceFilterInput) {
  deviceCount(id: $id, groupId: $groupId, groupName: $groupName, deviceTypeId: $deviceTypeId, orgId: $orgId, tag: $tag, where: $where)
  device(id: $id, groupId: $groupId, groupName: $groupName, deviceTypeId: $deviceTypeId, orgId: $orgId, tag: $tag, where: $where, limit: 1000) { id }
}`;

async function counted(variables: Record<string, unknown>, who = principal('acc-a')) {
  const r = await f.run(DOC, variables, who);
  expect(r.errors).toBeUndefined();
  return { count: r.data!.deviceCount as number, listed: (r.data!.device as unknown[]).length };
}

test('counts the caller’s devices only, whatever the filters', async () => {
  expect(await counted({})).toEqual({ count: 8, listed: 8 });
  expect(await counted({}, principal('acc-b'))).toEqual({ count: 4, listed: 4 });
  expect(await counted({}, principal('acc-c'))).toEqual({ count: 0, listed: 0 });
  // Another account's ids are not counted (unknown and foreign look the same).
  expect(await counted({ id: ['a1', 'b0', 'b1'] })).toEqual({ count: 1, listed: 1 });
});

test('applies every filter the listing applies, and equals the listing’s length', async () => {
  const cases: [Record<string, unknown>, number][] = [
    [{ groupId: ['g1'] }, 2],
    [{ groupName: ['Hall'] }, 2],
    [{ tag: ['vip'] }, 2],
    [{ orgId: 'org-1' }, 1],
    [{ deviceTypeId: ['dt2'] }, 1],
    [{ where: { isOnline: { eq: true } } }, 1],
    [{ where: { isOnline: { eq: false } } }, 7],
    [{ groupId: ['g1'], where: { isOnline: { eq: false } } }, 1],
    [{ where: { name: { startsWith: 'Device a-more' } } }, 5],
  ];
  for (const [variables, expected] of cases) expect(await counted(variables)).toEqual({ count: expected, listed: expected });
});

test('ignores limit and offset (it takes none) and needs Devices_View', async () => {
  const limited = await f.run('{ deviceCount device(limit: 2, offset: 1) { id } }');
  expect(limited.data).toMatchObject({ deviceCount: 8 });
  expect((limited.data!.device as unknown[]).length).toBe(2);
  const refused = await f.run('{ deviceCount }', {}, principal('acc-a', []));
  expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});
