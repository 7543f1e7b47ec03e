/**
 * Tenancy (SECURITY.md API1): a second account's key sees none of the first account's objects
 * through any interface. Foreign ids answer exactly like unknown ids (empty lists, 404), never
 * 403, on every resource that exists: devices, device groups, media, playlists, templates,
 * schedules (and their groups), data tables, users, organizations, API keys, audit events, the
 * account itself; batch operations included.
 */
import { createAccount, createApiKey, createOrganization, createUser, type IdentityService } from '@pylon/identity';
import type { ContentRepository } from '@pylon/content';
import type { DataTableRepository } from '@pylon/datatables';
import type { DeviceRepository } from '@pylon/devices';
import type { ScheduleRepository } from '@pylon/scheduling';
import { insertMedia, startHarness, TEST_KEY, type Harness } from './harness.js';

const A = 'demo-account';
let h: Harness;
let keyB: string;
const a: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  const identity = h.subgraphs.identity as unknown as IdentityService;
  const content = (h.subgraphs.content as unknown as { repo: ContentRepository }).repo;
  const scheduling = (h.subgraphs.scheduling as unknown as { repo: ScheduleRepository }).repo;
  const datatables = (h.subgraphs.datatables as unknown as { repo: DataTableRepository }).repo;
  const devices = (h.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;

  // Account A (the demo account) gets one object of every kind.
  const grouped = { groupId: null, groupName: null, tags: ['a'] };
  a.device = (await devices.all(A))[0]!.id;
  a.deviceGroup = (await devices.groupTree.listGroups(A))[0]!.id;
  a.media = await insertMedia(h, A, { ...grouped, name: 'A logo', fileName: 'a.png', mimeType: 'image/png' });
  a.mediaGroup = (await content.media.groups.insert(A, { name: 'A media', parentId: null })).id;
  a.playlist = (await content.playlists.items.insert(A, { ...grouped, name: 'A loop', type: 'MULTIMEDIA', duration: null, sources: [] })).id;
  a.playlistGroup = (await content.playlists.groups.insert(A, { name: 'A playlists', parentId: null })).id;
  a.template = (await content.templates.items.insert(A, { ...grouped, name: 'A layout', width: 1920, height: 1080, orientation: 0, modules: [] })).id;
  a.templateGroup = (await content.templates.groups.insert(A, { name: 'A templates', parentId: null })).id;
  a.schedule = (
    await scheduling.schedules.insert(A, {
      name: 'A weekdays',
      type: 'PLAYLIST',
      startDate: null,
      endDate: null,
      startTime: null,
      endTime: null,
      monday: true,
      tuesday: true,
      wednesday: true,
      thursday: true,
      friday: true,
      saturday: false,
      sunday: false,
      priority: 3,
      templateId: null,
      playlistId: a.playlist,
      deviceIds: [a.device],
      groupId: null,
      groupName: null,
      orgId: null,
      tags: [],
    })
  ).id;
  a.scheduleGroup = (await scheduling.groups.insert(A, { name: 'A schedules', parentId: null })).id;
  a.dataTable = (await datatables.insertTable(A, { name: 'A prices', description: null, columns: [], rowCount: 0, cacheTtlSeconds: null })).id;
  a.org = (await createOrganization(identity.repo, A, { name: 'A branch' })).id;
  a.apiKey = (await identity.repo.apiKeys.find(A, {}, { limit: 1 }))[0]!.id;

  // Account B: its own owner with the API role and a key.
  await createAccount(identity.repo, { id: 'tenant-b', name: 'Tenant B', timezone: 'Asia/Tokyo' });
  const ownerB = await createUser(identity.repo, { accountId: 'tenant-b', username: 'owner@tenant-b.example', roles: ['Owner', 'API'] });
  keyB = (await createApiKey(identity.repo, { accountId: 'tenant-b', userId: ownerB.id, name: 'b' })).value;

  // Some audit events of A to look for.
  await h.gql('query tenantProbeA { account { id } }');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await fetch(`${h.baseUrl}/account/auditevents?actionName=tenantProbeA`, { headers: { 'x-service-apikey': TEST_KEY } });
    const list = (await r.json()) as { event_id: string }[];
    if (list.length) {
      a.auditEvent = list[0]!.event_id;
      break;
    }
    if (Date.now() > deadline) throw new Error('the audit event of A never arrived');
    await new Promise((res) => setTimeout(res, 150));
  }
}, 60_000);
afterAll(() => h.stop());

const asB = (query: string, variables?: Record<string, unknown>) => h.gql(query, { key: keyB, ...(variables ? { variables } : {}) });
const restB = (path: string, init: RequestInit = {}) =>
  fetch(`${h.baseUrl}${path}`, {
    ...init,
    headers: { 'x-service-apikey': keyB, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });

describe('GraphQL: B never sees A', () => {
  test("lists are B's own (empty), whatever the ids asked for", async () => {
    const r = await asB(
      `query($d: [String!], $m: [String!]) {
      device(id: $d) { id } deviceGroups { id } media(id: $m) { id } mediaGroups { id } playlist { id } playlistGroups { id }
      template { id } templateGroups { id }
    }`,
      { d: [a.device], m: [a.media] },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data).toEqual({
      device: [],
      deviceGroups: [],
      media: [],
      mediaGroups: [],
      playlist: [],
      playlistGroups: [],
      template: [],
      templateGroups: [],
    });
    const r2 = await asB(
      `query($s: [String!], $u: [String!], $o: [String!]) {
      schedule(id: $s) { id } scheduleGroups { id } dataTables { data { id } } user(id: $u) { id } organizations(id: $o) { id } apiKeys(includeRevoked: true) { id }
    }`,
      { s: [a.schedule], u: ['demo-owner'], o: [a.org] },
    );
    expect(r2.body.errors).toBeUndefined();
    expect(r2.body.data).toMatchObject({ schedule: [], scheduleGroups: [], dataTables: { data: [] }, user: [], organizations: [] });
    expect((r2.body.data?.apiKeys as { id: string }[]).map((k) => k.id)).not.toContain(a.apiKey);
  });

  test('single items by a foreign id look unknown', async () => {
    const t = await asB('query($t: String!) { dataTable(tableId: $t) { id name } }', { t: a.dataTable });
    expect(t.body.data?.dataTable ?? null).toBeNull();
    if (t.body.errors) expect(t.body.errors[0]!.extensions?.code).toBe('NOT_FOUND');
    const acc = await asB('{ account { id name timezone } }');
    expect(acc.body.data?.account).toEqual({ id: 'tenant-b', name: 'Tenant B', timezone: 'Asia/Tokyo' });
  });

  test("audit events: none of A's", async () => {
    const r = await asB('query($ids: [String!]) { auditEvent(eventId: $ids) { eventId } all: auditEvent(limit: 1000) { eventId } }', { ids: [a.auditEvent] });
    expect(r.body.data?.auditEvent).toEqual([]);
    expect((r.body.data?.all as { eventId: string }[]).map((e) => e.eventId)).not.toContain(a.auditEvent);
  });

  test("mutations on A's objects fail as unknown: revoke A's key, commands to A's device (single and batch)", async () => {
    const rev = await asB('mutation($id: String!) { revokeApiKey(id: $id) { success errorCode } }', { id: a.apiKey });
    expect(rev.body.data?.revokeApiKey).toEqual({ success: false, errorCode: 'NOT_FOUND' });
    expect((await h.gql('{ account { id } }')).status).toBe(200);
    const contact = await asB('mutation($c: String) { updateAccount(input: { primaryContactId: $c }) { success errorField } }', { c: 'demo-owner' });
    expect(contact.body.data?.updateAccount).toEqual({ success: false, errorField: 'primaryContactId' });
    const key = await asB('mutation { createApiKey(input: { userId: "demo-owner", name: "steal" }) { success errorCode key } }');
    expect(key.body.data?.createApiKey).toMatchObject({ success: false, errorCode: 'NOT_FOUND', key: null });
    const fields = ((await asB('{ __schema { mutationType { fields { name } } } }')).body.data?.__schema.mutationType.fields as { name: string }[]).map(
      (f) => f.name,
    );
    if (fields.includes('sendBulkDeviceCommands')) {
      const bulk = await asB(
        'mutation($d: [String!]!) { sendBulkDeviceCommands(input: { deviceIds: $d, commands: [{ command: "restart" }] }) { successCount failureCount results { success deviceId } } }',
        { d: [a.device] },
      );
      expect(bulk.body.data?.sendBulkDeviceCommands).toMatchObject({ successCount: 0, failureCount: 1, results: [{ success: false, deviceId: a.device }] });
    }
    if (fields.includes('deleteDevice')) {
      const del = await asB('mutation($id: ID!) { deleteDevice(id: $id) { success errorCode } }', { id: a.device });
      expect(del.body.data?.deleteDevice).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    }
    // A's device is still there for A.
    expect(((await h.gql('query($d: [String!]) { device(id: $d) { id } }', { variables: { d: [a.device] } })).body.data?.device as unknown[]).length).toBe(1);
  });
});

describe("REST: 404 for A's ids, B's own lists", () => {
  test('GET by a foreign id: 404 NOT_FOUND, as for an unknown id', async () => {
    for (const path of [`/devices/${a.device}`, '/users/demo-owner', `/account/auditevents/${a.auditEvent}`]) {
      const res = await restB(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
  });

  test("lists hold only B's objects", async () => {
    expect(await (await restB('/devices')).json()).toEqual([]);
    expect(((await (await restB('/users')).json()) as { user_name: string }[]).map((u) => u.user_name)).toEqual(['owner@tenant-b.example']);
    expect(await (await restB('/account/organizations')).json()).toEqual([]);
    const events = (await (await restB('/account/auditevents?limit=1000')).json()) as { event_id: string }[];
    expect(events.map((e) => e.event_id)).not.toContain(a.auditEvent);
    expect(((await (await restB('/account')).json()) as { id: string }).id).toBe('tenant-b');
  });

  test("writes to A's objects: 404, and nothing changes", async () => {
    const doc = (await (await fetch(`${h.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const tried: string[] = [];
    const attempt = async (method: string, template: string, path: string, body?: unknown) => {
      if (!doc.paths[template]?.[method.toLowerCase()]) return;
      tried.push(`${method} ${template}`);
      const res = await restB(path, { method, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    };
    await attempt('PUT', '/devices/{id}', `/devices/${a.device}`, { name: 'stolen' });
    await attempt('PATCH', '/devices/{id}', `/devices/${a.device}`, [{ op: 'replace', path: '/name', value: 'stolen' }]);
    await attempt('POST', '/devices/{id}/commands', `/devices/${a.device}/commands`, [{ command: 'restart' }]);
    await attempt('DELETE', '/devices/groups/{id}', `/devices/groups/${a.deviceGroup}`);
    await attempt('DELETE', '/devices/{id}', `/devices/${a.device}`);
    expect(tried.length).toBeGreaterThan(0);
    const still = (await (await fetch(`${h.baseUrl}/devices/${a.device}`, { headers: { 'x-service-apikey': TEST_KEY } })).json()) as { name: string };
    expect(still.name).not.toBe('stolen');
  });
});

describe("legacy: B's account and devices only", () => {
  test("GET /account and /devices with B's key", async () => {
    const account = (await (await fetch(`${h.legacyUrl}/account?api_key=${keyB}`)).json()) as { name: string; timezone: string };
    expect(account).toMatchObject({ name: 'Tenant B', timezone: 'Asia/Tokyo' });
    expect(await (await fetch(`${h.legacyUrl}/devices?api_key=${keyB}`)).json()).toEqual([]);
  });
});
