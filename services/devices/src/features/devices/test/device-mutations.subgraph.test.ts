/** Device and group mutations through subgraph.execute: success payloads, every refusal, tenancy, JSON Patch attacks. */
import { createDevice, principal, startFixture, type Fixture } from '../../../../test/fixtures/subgraph.js';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.close());

const DEVICE =
  'id name tags groupId groupName orgId timezone notes registrationKey deviceType { id name manufacturer } location { city latitude } createdOn updatedOn';
const create = (i: Record<string, unknown>, who = principal('acc-a')) =>
  f.run(`mutation($i: CreateDeviceInput!) { createDevice(input: $i) { success error errorCode errorField device { ${DEVICE} } } }`, { i }, who);
const update = (id: string, i: Record<string, unknown>, who = principal('acc-a')) =>
  f.run(
    `mutation($id: ID!, $i: UpdateDeviceInput!) { updateDevice(id: $id, input: $i) { success error errorCode errorField device { ${DEVICE} } } }`,
    { id, i },
    who,
  );
const patch = (id: string, ops: unknown, who = principal('acc-a')) =>
  f.run(
    `mutation($id: ID!, $ops: [JsonPatchOperationInput!]!) { patchDevice(id: $id, operations: $ops) { success error errorCode errorField device { ${DEVICE} } } }`,
    { id, ops },
    who,
  );
const one = async (id: string) => (await f.run(`query($id: String!) { device(id: [$id]) { ${DEVICE} } }`, { id })).data?.device?.[0];
const versionOf = async (id: string) => (await f.sg.repo.findDevice('acc-a', id))!.version;

describe('createDevice', () => {
  test('registers a device and returns its registration key', async () => {
    const r = await create({
      name: '  Lobby 1 ',
      tags: ['a', 'a', 'b'],
      location: { city: 'Lyon', latitude: 45.7 },
      timezone: 'Europe/Paris',
      deviceType: { name: 'Android', manufacturer: 'ACME' },
    });
    expect(r.errors).toBeUndefined();
    const p = r.data!.createDevice;
    expect(p).toMatchObject({
      success: true,
      error: null,
      errorCode: null,
      device: {
        name: 'Lobby 1',
        tags: ['a', 'b'],
        location: { city: 'Lyon', latitude: 45.7 },
        timezone: 'Europe/Paris',
        deviceType: { name: 'Android', manufacturer: 'ACME' },
      },
    });
    expect(p.device.registrationKey).toMatch(/^[0-9a-f]{32}$/);
    expect(p.device.createdOn).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await one(p.device.id)).toMatchObject({ name: 'Lobby 1' });
  });
  test('a player-chosen registration key; the same key twice is a conflict', async () => {
    const own = 'player-key-0001-7f3a9c2e5b8d4a61c0e9';
    expect((await create({ name: 'Own key', registrationKey: own })).data!.createDevice.device.registrationKey).toBe(own);
    expect((await create({ name: 'Again', registrationKey: own })).data!.createDevice).toMatchObject({
      success: false,
      errorCode: 'DUPLICATE_KEY',
      errorField: 'registrationKey',
    });
    expect((await create({ name: 'Bad key', registrationKey: 'no spaces allowed in a registration key' })).data!.createDevice).toMatchObject({
      success: false,
      errorCode: 'BAD_USER_INPUT',
      errorField: 'registrationKey',
    });
  });
  test("an orgId that is not one of the account's organizations (another account's, or none) is refused on create, update and patch", async () => {
    for (const orgId of ['org-b', 'no-such-org']) {
      expect((await create({ name: 'Foreign org', orgId })).data!.createDevice).toMatchObject({
        success: false,
        errorCode: 'BAD_USER_INPUT',
        errorField: 'orgId',
        error: expect.stringContaining('orgId'),
      });
    }
    const { id } = (await create({ name: 'Own org', orgId: 'org-1' })).data!.createDevice.device;
    expect((await update(id, { orgId: 'org-b' })).data!.updateDevice).toMatchObject({ success: false, errorField: 'orgId' });
    expect((await patch(id, [{ op: 'replace', path: '/orgId', value: 'org-b' }])).data!.patchDevice).toMatchObject({ success: false, errorField: 'orgId' });
    expect((await patch(id, [{ op: 'replace', path: '/name', value: 'Renamed' }])).data!.patchDevice).toMatchObject({
      success: true,
      device: { orgId: 'org-1' },
    });
    expect((await update(id, { orgId: null })).data!.updateDevice).toMatchObject({ success: true, device: { orgId: null } });
    expect(await one(id)).toMatchObject({ orgId: null });
  });
  test('a player-chosen key shorter than 32 characters (guessable) is refused, naming registrationKey', async () => {
    for (const key of ['player-key-0001', 'abcdefgh', 'x'.repeat(31)]) {
      expect((await create({ name: 'Short key', registrationKey: key })).data!.createDevice).toMatchObject({
        success: false,
        errorCode: 'BAD_USER_INPUT',
        errorField: 'registrationKey',
        error: expect.stringMatching(/32 to 128/),
      });
    }
  });
  test('a player-chosen key of the right length but little entropy (runs, repeats, small alphabets) is refused (issue 20, finding 8)', async () => {
    for (const key of ['x'.repeat(32), 'ab'.repeat(16), 'abcdefghijklmnopqrstuvwxyzABCDEF', '0123456789'.repeat(4), '01'.repeat(20)]) {
      expect((await create({ name: 'Weak key', registrationKey: key })).data!.createDevice).toMatchObject({
        success: false,
        errorCode: 'BAD_USER_INPUT',
        errorField: 'registrationKey',
        error: expect.stringMatching(/too easy to guess/),
      });
    }
  });
  test.each([
    [{ name: '' }, 'name', /name must not be empty/],
    [{ name: 'x'.repeat(201) }, 'name', /at most 200/],
    [{ name: 'x', groupId: 'nope' }, 'groupId', /device group 'nope' was not found/],
    [{ name: 'x', timezone: 'Mars/Base' }, 'timezone', /time zone/],
    [{ name: 'x', location: { latitude: 91 } }, 'location.latitude', /at most 90/],
    [{ name: 'x', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'tags', /at most 50/],
  ])('refused: %j', async (input, field, message) => {
    const p = (await create(input)).data!.createDevice;
    expect(p).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: field, device: null });
    expect(p.error).toMatch(message);
  });
  test('needs Devices_Edit; viewers never see registration keys', async () => {
    const r = await create({ name: 'x' }, principal('acc-a', ['Devices_View']));
    expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const viewer = await f.run('{ device(limit: 1) { registrationKey } }', {}, principal('acc-a', ['Devices_View']));
    expect(viewer.data!.device[0].registrationKey).toBeNull();
  });
});

describe('updateDevice', () => {
  test('changes the given fields only; null clears; name cannot be cleared', async () => {
    const { id } = await createDevice(f, { name: 'Upd', tags: ['x'], notes: 'n' });
    const r = (await update(id, { notes: null, orgId: 'org-9' })).data!.updateDevice;
    expect(r).toMatchObject({ success: true, device: { name: 'Upd', tags: ['x'], notes: null, orgId: 'org-9' } });
    expect((await update(id, { name: null })).data!.updateDevice).toMatchObject({ success: false, errorField: 'name' });
  });
  test('unknown and foreign ids: NOT_FOUND', async () => {
    const { id } = await createDevice(f, { name: 'Mine' });
    expect((await update('nope', { name: 'x' })).data!.updateDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect((await update(id, { name: 'stolen' }, principal('acc-b'))).data!.updateDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect((await one(id)).name).toBe('Mine');
  });
});

describe('patchDevice (JSON Patch)', () => {
  test('replace, add to a list, add an object, remove, test', async () => {
    const { id } = await createDevice(f, { name: 'P1', tags: ['a'] });
    const r = await patch(id, [
      { op: 'test', path: '/name', value: 'P1' },
      { op: 'replace', path: '/name', value: 'P2' },
      { op: 'add', path: '/tags/-', value: 'b' },
      { op: 'add', path: '/location', value: { city: 'Oslo' } },
      { op: 'remove', path: '/tags/0' },
    ]);
    expect(r.data!.patchDevice).toMatchObject({ success: true, device: { name: 'P2', tags: ['b'], location: { city: 'Oslo', latitude: null } } });
  });
  test.each([
    ['/id', 'read-only'],
    ['/accountId', 'read-only'],
    ['/version', 'read-only'],
    ['/createdOn', 'read-only'],
    ['/registrationKey', 'read-only'],
    ['/isOnline', 'read-only'],
    ['/__proto__/x', 'not allowed'],
    ['/constructor/prototype/x', 'not allowed'],
    ['/location/__proto__', 'not allowed'],
    ['/nope', 'no writable field'],
  ])('%s is refused and nothing changes', async (path, message) => {
    const { id } = await createDevice(f, { name: 'Target' });
    const before = await versionOf(id);
    const p = (
      await patch(id, [
        { op: 'replace', path: '/name', value: 'changed' },
        { op: 'add', path, value: 'x' },
      ])
    ).data!.patchDevice;
    expect(p).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: 'operations[1].path' });
    expect(p.error).toContain(message);
    expect(await versionOf(id)).toBe(before);
    expect((await one(id)).name).toBe('Target');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
  test('prototype keys inside a value, a failed test, an unresolvable path, an invalid result', async () => {
    const { id } = await createDevice(f, { name: 'Vals' });
    const bad = JSON.parse('[{"op":"add","path":"/location","value":{"__proto__":{"polluted":1}}}]');
    expect((await patch(id, bad)).data!.patchDevice).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT' });
    expect((await patch(id, [{ op: 'test', path: '/name', value: 'other' }])).data!.patchDevice).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE' });
    expect((await patch(id, [{ op: 'replace', path: '/location/city', value: 'x' }])).data!.patchDevice).toMatchObject({
      success: false,
      errorCode: 'UNPROCESSABLE',
    });
    expect((await patch(id, [{ op: 'replace', path: '/name', value: 42 }])).data!.patchDevice).toMatchObject({
      success: false,
      errorCode: 'BAD_USER_INPUT',
      errorField: 'name',
    });
    expect((await patch(id, [{ op: 'launch', path: '/name' }])).data!.patchDevice).toMatchObject({ success: false, errorField: 'operations[0].op' });
    expect((await patch(id, [])).data!.patchDevice).toMatchObject({ success: false });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await one(id)).name).toBe('Vals');
  });
  test('a foreign device: NOT_FOUND', async () => {
    const { id } = await createDevice(f, { name: 'Theirs' }, principal('acc-b'));
    expect((await patch(id, [{ op: 'replace', path: '/name', value: 'x' }])).data!.patchDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  });
});

describe('deleteDevice', () => {
  test('deletes; then unknown; foreign ids are not found; Devices_Delete required', async () => {
    const { id } = await createDevice(f, { name: 'Doomed' });
    const del = (who = principal('acc-a')) => f.run('mutation($id: ID!) { deleteDevice(id: $id) { success error errorCode deviceId } }', { id }, who);
    expect((await del(principal('acc-a', ['Devices_View', 'Devices_Edit']))).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await del(principal('acc-b'))).data!.deleteDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect((await del()).data!.deleteDevice).toEqual({ success: true, error: null, errorCode: null, deviceId: id });
    expect((await del()).data!.deleteDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect(await one(id)).toBeUndefined();
  });
});

describe('device groups', () => {
  const G = 'success error errorCode errorField group { id name parentId level count }';
  const createGroup = (i: Record<string, unknown>, who = principal('acc-a')) =>
    f.run(`mutation($i: DeviceGroupInput!) { createDeviceGroup(input: $i) { ${G} } }`, { i }, who);
  const updateGroup = (id: string, i: Record<string, unknown>) =>
    f.run(`mutation($id: ID!, $i: DeviceGroupInput!) { updateDeviceGroup(id: $id, input: $i) { ${G} } }`, { id, i });
  const deleteGroup = (id: string, who = principal('acc-a')) =>
    f.run('mutation($id: ID!) { deleteDeviceGroup(id: $id) { success errorCode groupId movedDevices movedGroups } }', { id }, who);

  test('nested groups; renaming updates the devices; delete moves devices and sub-groups up, never deletes devices', async () => {
    const top = (await createGroup({ name: 'Region' })).data!.createDeviceGroup.group;
    const mid = (await createGroup({ name: 'City', parentId: top.id })).data!.createDeviceGroup.group;
    const leaf = (await createGroup({ name: 'Store', parentId: mid.id })).data!.createDeviceGroup.group;
    expect([top.level, mid.level, leaf.level]).toEqual([0, 1, 2]);
    const { id } = await createDevice(f, { name: 'In city', groupId: mid.id });
    expect((await one(id)).groupName).toBe('City');
    expect((await updateGroup(mid.id, { name: 'Town' })).data!.updateDeviceGroup).toMatchObject({
      success: true,
      group: { name: 'Town', parentId: top.id, count: 1 },
    });
    expect((await one(id)).groupName).toBe('Town');
    expect((await updateGroup(top.id, { name: 'Region', parentId: leaf.id })).data!.updateDeviceGroup).toMatchObject({
      success: false,
      errorField: 'parentId',
    });
    expect((await deleteGroup(mid.id, principal('acc-b'))).data!.deleteDeviceGroup).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect((await deleteGroup(mid.id)).data!.deleteDeviceGroup).toMatchObject({ success: true, movedDevices: 1, movedGroups: 1 });
    expect(await one(id)).toMatchObject({ groupId: top.id, groupName: 'Region' });
    const tree = (await f.run('{ deviceGroups(tree: true) { name children { name } } }')).data!.deviceGroups;
    expect(tree).toContainEqual({ name: 'Region', children: [{ name: 'Store' }] });
  });
  test('refusals: empty name, unknown parent, depth', async () => {
    expect((await createGroup({ name: ' ' })).data!.createDeviceGroup).toMatchObject({ success: false, errorField: 'name' });
    expect((await createGroup({ name: 'x', parentId: 'nope' })).data!.createDeviceGroup).toMatchObject({ success: false, errorField: 'parentId' });
    let parent: string | null = null;
    for (let i = 0; i < 10; i++) parent = (await createGroup({ name: `L${i}`, parentId: parent })).data!.createDeviceGroup.group.id;
    expect((await createGroup({ name: 'too deep', parentId: parent })).data!.createDeviceGroup).toMatchObject({ success: false, errorField: 'parentId' });
  });
});
