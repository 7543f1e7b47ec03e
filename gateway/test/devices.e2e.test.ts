/**
 * Devices through the all-in-one server over real HTTP: REST device writes, groups, commands,
 * events, ping data and screenshots by registration key, alerts, the player API in front of the
 * REST facade, GraphQL mutations through the gateway, JSON Patch attacks and cross-account isolation.
 */
import { DEMO_SNAP } from '../../launcher/src/demo/ping-simulator.js';
import { createOrganization, type IdentityService } from '@pylon/identity';
import { startHarness, type Harness } from './harness.js';
import { otherAccountKey } from './other-account.js';

let h: Harness;
let otherKey: string;
// A complete JPEG: the snap check walks the whole structure, not just the first bytes.
const JPEG = DEMO_SNAP;

beforeAll(async () => {
  h = await startHarness();
  otherKey = await otherAccountKey(h, 'devices-e2e-other', 'o@other.example');
}, 60_000);
afterAll(() => h.stop());

describe("references to another account's records", () => {
  test("an orgId of another account is refused on create, update and patch (REST 400 naming org_id; GraphQL success:false naming orgId); the account's own is accepted", async () => {
    const identity = h.subgraphs.identity as unknown as IdentityService;
    const foreign = (await createOrganization(identity.repo, 'devices-e2e-other', { name: 'Their branch' })).id;
    const own = (await createOrganization(identity.repo, 'demo-account', { name: 'Our branch' })).id;
    const refused = await call('POST', '/devices', { name: 'Foreign org', org_id: foreign });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/org_id|orgId/);
    const made = await call('POST', '/devices', { name: 'Own org', org_id: own });
    expect(made.status).toBeLessThan(300);
    expect(made.body.org_id).toBe(own);
    const patched = await call('PATCH', `/devices/${made.body.id}`, [{ op: 'replace', path: '/org_id', value: foreign }], {
      type: 'application/json-patch+json',
    });
    expect(patched.status).toBe(400);
    const gql = await h.gql('mutation($id: ID!, $o: String) { updateDevice(id: $id, input: { orgId: $o }) { success errorField error } }', {
      variables: { id: made.body.id, o: foreign },
    });
    expect((gql.body as any).data.updateDevice).toMatchObject({ success: false, errorField: 'orgId' });
    expect((await call('GET', `/devices/${made.body.id}`)).body.org_id).toBe(own);
  });
});

type Json = Record<string, any>;
async function call(
  method: string,
  path: string,
  body?: unknown,
  opts: { key?: string; type?: string } = {},
): Promise<{ status: number; body: Json | any; headers: Headers }> {
  const headers: Record<string, string> = { 'x-service-apikey': opts.key ?? h.key };
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
const player = (key: string, path: string, body: unknown = {}) =>
  fetch(`${h.baseUrl}/player/${key}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as Json }),
  );

describe('REST devices', () => {
  let device: Json;
  test('POST /devices registers and answers the registration key (201)', async () => {
    const r = await call('POST', '/devices', {
      name: 'E2E screen',
      tags: ['e2e'],
      location: { city: 'Oslo', latitude: 59.9 },
      device_type: { name: 'Tizen', manufacturer: 'Samsung' },
      timezone: 'Europe/Oslo',
    });
    expect(r.status).toBe(201);
    device = r.body;
    expect(device).toMatchObject({
      name: 'E2E screen',
      tags: 'e2e',
      is_online: false,
      ping_data: null,
      location: { city: 'Oslo', latitude: 59.9 },
      device_type: { name: 'Tizen' },
      timezone: 'Europe/Oslo',
    });
    expect(device.registration_key).toMatch(/^[0-9a-f]{32}$/);
    expect((await call('GET', `/devices/${device.id}`)).body).toMatchObject({ id: device.id, registration_key: device.registration_key });
  });
  test('POST /devices refuses unknown and owned properties, names the field', async () => {
    for (const [body, field] of [
      [{ name: 'x', id: 'mine' }, 'id'],
      [{ name: 'x', account_id: 'a' }, 'account_id'],
      [{ tags: [] }, 'name'],
      [{ name: 'x', group_id: 'nope' }, 'group_id'],
      [{ name: 'x', timezone: 'Nowhere/City' }, 'timezone'],
    ] as const) {
      const r = await call('POST', '/devices', body);
      expect(r.status).toBe(400);
      expect(r.body.error.field).toBe(field);
    }
  });
  test('PUT replaces the writable fields; PATCH changes some; DELETE removes', async () => {
    const put = await call('PUT', `/devices/${device.id}`, { name: 'Renamed', tags: ['a'] });
    expect(put.status).toBe(204);
    const replaced = (await call('GET', `/devices/${device.id}`)).body;
    expect(replaced).toMatchObject({ name: 'Renamed', tags: 'a', timezone: null, location: null });
    const patch = await call(
      'PATCH',
      `/devices/${device.id}`,
      [
        { op: 'replace', path: '/name', value: 'Patched' },
        { op: 'add', path: '/location', value: { city: 'Bergen' } },
        { op: 'add', path: '/tags/-', value: 'b' },
      ],
      { type: 'application/json-patch+json' },
    );
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ name: 'Patched', tags: 'a,b', location: { city: 'Bergen' } });
    const other = await call('POST', '/devices', { name: 'To delete' });
    expect((await call('DELETE', `/devices/${other.body.id}`)).status).toBe(204);
    expect((await call('GET', `/devices/${other.body.id}`)).status).toBe(404);
    expect((await call('DELETE', `/devices/${other.body.id}`)).status).toBe(404);
  });
  test.each([['/id'], ['/account_id'], ['/version'], ['/created_on'], ['/registration_key'], ['/__proto__/x'], ['/constructor/prototype/x']])(
    'PATCH %s: 400 and nothing changes',
    async (path) => {
      const before = (await call('GET', `/devices/${device.id}`)).body;
      const r = await call(
        'PATCH',
        `/devices/${device.id}`,
        [
          { op: 'replace', path: '/name', value: 'hacked' },
          { op: 'add', path, value: 'x' },
        ],
        { type: 'application/json-patch+json' },
      );
      expect(r.status).toBe(400);
      expect(r.body.error.field).toBe('body[1].path');
      expect((await call('GET', `/devices/${device.id}`)).body).toEqual(before);
      expect(({} as Json).x).toBeUndefined();
    },
  );
  test('PATCH: a failed test is 422; a bad op is 400', async () => {
    expect((await call('PATCH', `/devices/${device.id}`, [{ op: 'test', path: '/name', value: 'nope' }])).status).toBe(422);
    expect((await call('PATCH', `/devices/${device.id}`, [{ op: 'explode', path: '/name' }])).status).toBe(400);
  });
  test('another account: 404 for GET, PUT, PATCH, DELETE, commands, track', async () => {
    const k = { key: otherKey };
    expect((await call('GET', `/devices/${device.id}`, undefined, k)).status).toBe(404);
    expect((await call('PUT', `/devices/${device.id}`, { name: 'x' }, k)).status).toBe(404);
    expect((await call('PATCH', `/devices/${device.id}`, [{ op: 'replace', path: '/name', value: 'x' }], k)).status).toBe(404);
    expect((await call('DELETE', `/devices/${device.id}`, undefined, k)).status).toBe(404);
    expect((await call('POST', `/devices/${device.id}/commands`, [{ command: 'restart' }], k)).status).toBe(404);
    expect((await call('POST', `/devices/${device.id}/track`, { event_name: 'x' }, k)).status).toBe(404);
    expect((await call('GET', `/devices/${device.registration_key}/pingdata`, undefined, k)).status).toBe(404);
    expect((await call('GET', `/devices/${device.id}`)).body.name).toBe('Patched');
  });
});

describe('groups (literal paths win over /devices/{id})', () => {
  test('tree=true nests groups of any depth (up to the 10-level cap)', async () => {
    let parentId: string | undefined;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const g = await call('POST', '/devices/groups', { name: `Deep ${i}`, ...(parentId ? { parent_id: parentId } : {}) });
      expect(g.status).toBe(201);
      parentId = g.body.id;
      ids.push(g.body.id);
    }
    const tree = (await call('GET', '/devices/groups?tree=true')).body as { id: string; level: number; children: unknown[] }[];
    let node = tree.find((g) => g.id === ids[0]) as { id: string; level: number; children: unknown[] } | undefined;
    for (let depth = 0; depth < 7; depth++) {
      expect(node?.id).toBe(ids[depth]);
      expect(node?.level).toBe(depth);
      node = node?.children[0] as typeof node;
    }
    expect(node).toBeUndefined();
    for (const id of ids.reverse()) expect((await call('DELETE', `/devices/groups/${id}`)).status).toBe(204);
  });
  test('GET/POST /devices/groups, PUT/DELETE /devices/groups/{id}', async () => {
    const parent = await call('POST', '/devices/groups', { name: 'E2E region' });
    expect(parent.status).toBe(201);
    const child = await call('POST', '/devices/groups', { name: 'E2E store', parent_id: parent.body.id });
    expect(child.body).toEqual({
      id: expect.any(String),
      name: 'E2E store',
      parent_id: parent.body.id,
      level: 1,
      count: 0,
      children: [],
      family: null,
      organization_count: null,
    });
    const d = await call('POST', '/devices', { name: 'Grouped', group_id: child.body.id });
    expect(d.body.group_name).toBe('E2E store');
    const tree = await call('GET', '/devices/groups?tree=true');
    expect(tree.status).toBe(200);
    expect(tree.body.find((g: Json) => g.id === parent.body.id).children).toEqual([expect.objectContaining({ name: 'E2E store', count: 1 })]);
    expect((await call('GET', `/devices/groups?id=${child.body.id}`)).body).toHaveLength(1);
    expect((await call('PUT', `/devices/groups/${child.body.id}`, { name: 'E2E shop' })).status).toBe(204);
    expect((await call('GET', `/devices/groups?id=${child.body.id}`)).body[0]).toMatchObject({ name: 'E2E shop', parent_id: parent.body.id });
    expect((await call('GET', `/devices/${d.body.id}`)).body.group_name).toBe('E2E shop');
    expect((await call('DELETE', `/devices/groups/${child.body.id}`, undefined, { key: otherKey })).status).toBe(404);
    expect((await call('DELETE', `/devices/groups/${child.body.id}`)).status).toBe(204);
    expect((await call('GET', `/devices/${d.body.id}`)).body).toMatchObject({ group_id: parent.body.id, group_name: 'E2E region' });
    expect((await call('POST', '/devices/groups', { name: '' })).status).toBe(400);
    for (const [method, path] of [
      ['POST', '/devices/groups'],
      ['PUT', `/devices/groups/${parent.body.id}`],
    ] as const) {
      const nullName = await call(method, path, { name: null });
      expect(nullName.status).toBe(400);
      expect(nullName.body.error.field).toBe('name');
    }
  });
});

describe('commands, the player API and ping data', () => {
  test('POST /devices/{id}/commands -> the next ping -> ack; GraphQL shows the status', async () => {
    const d = (await call('POST', '/devices', { name: 'Commanded' })).body;
    const sent = await call('POST', `/devices/${d.id}/commands`, [{ command: 'restart' }, { name: 'volume', arg: 35 }]);
    expect(sent.status).toBe(204);
    const ping = await player(d.registration_key, '/ping', { cpu_usage: 33, memory_usage: 44, disk_usage: 55, player_version: '9.9', ip_address: '10.9.9.9' });
    expect(ping.status).toBe(200);
    expect(ping.body.commands.map((c: Json) => c.command)).toEqual(['restart', 'volume']);
    const ack = await player(d.registration_key, `/commands/${ping.body.commands[0].id}/ack`, { status: 'acknowledged' });
    expect(ack.body).toEqual({ id: ping.body.commands[0].id, status: 'acknowledged' });
    const gql = await h.gql('query($d: String!) { deviceCommands(deviceId: $d) { command status } device(id: [$d]) { isOnline pingData { cpuUsage } } }', {
      variables: { d: d.id },
    });
    expect(gql.body.data).toEqual({
      deviceCommands: [
        { command: 'volume', status: 'DELIVERED' },
        { command: 'restart', status: 'ACKNOWLEDGED' },
      ],
      device: [{ isOnline: true, pingData: { cpuUsage: 33 } }],
    });

    const byPath = await call('GET', `/devices/${d.registration_key}/pingdata`);
    expect(byPath.status).toBe(200);
    expect(byPath.body).toMatchObject({ cpu_usage: 33, memory_usage: 44, disk_usage: 55, player_version: '9.9', ip_address: '10.9.9.9' });
    expect((await call('GET', `/devices/pingdata?registration_key=${d.registration_key}`)).body).toEqual(byPath.body);
    expect((await call('GET', '/devices/pingdata')).status).toBe(400);
    expect((await call('GET', '/devices/pingdata?registration_key=unknown-key-1')).status).toBe(404);
  });
  test('validation refusals name the field; unknown devices are 404', async () => {
    const d = (await call('POST', '/devices', { name: 'Refusals' })).body;
    const cases: [unknown, string][] = [
      [[{ command: 'launch' }], 'body[0].command'],
      [[{ command: 'volume', arg: '200' }], 'body[0].arg'],
      [[{ command: 'volume' }], 'body[0].arg'],
      [[], ''],
    ];
    for (const [body, field] of cases) {
      const r = await call('POST', `/devices/${d.id}/commands`, body);
      expect(r.status).toBe(400);
      if (field) expect(r.body.error.field).toBe(field);
    }
    expect((await call('POST', '/devices/nope/commands', [{ command: 'restart' }])).status).toBe(404);
  });
  test('POST /devices/commands: per-device results, a foreign id fails alone', async () => {
    const a = (await call('POST', '/devices', { name: 'Bulk 1' })).body;
    const foreign = (await call('POST', '/devices', { name: 'Not yours' }, { key: otherKey })).body;
    const r = await call('POST', '/devices/commands', { device_ids: [a.id, foreign.id], commands: [{ command: 'refresh' }] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      total_devices: 2,
      success_count: 1,
      failure_count: 1,
      results: [
        { success: true, device_id: a.id, error: null },
        { success: false, device_id: foreign.id, error: `device '${foreign.id}' was not found` },
      ],
    });
    expect((await player(foreign.registration_key, '/ping')).body.commands).toEqual([]);
    expect((await call('POST', '/devices/commands', { device_ids: [], commands: [{ command: 'refresh' }] })).status).toBe(400);
  });
  test('screenshots: PUT /player/{key}/snap, GET /devices/{key}/snap as image/jpeg, include_snap', async () => {
    const d = (await call('POST', '/devices', { name: 'Snappy' })).body;
    expect((await call('GET', `/devices/${d.registration_key}/snap`)).status).toBe(404);
    const put = await fetch(`${h.baseUrl}/player/${d.registration_key}/snap`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: JPEG });
    expect(put.status).toBe(204);
    const got = await fetch(`${h.baseUrl}/devices/${d.registration_key}/snap`, { headers: { 'x-service-apikey': h.key } });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await got.arrayBuffer())).toEqual(JPEG);
    expect((await call('GET', `/devices/${d.registration_key}/snap?base64=true`)).body).toBe(JPEG.toString('base64'));
    const list = await call('GET', `/devices?id=${d.id}&include_snap=true`);
    expect(list.body[0].snap).toBe(JPEG.toString('base64'));
    expect(
      (await fetch(`${h.baseUrl}/player/${d.registration_key}/snap`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'GIF89a-not-a-jpeg' }))
        .status,
    ).toBe(415);
  });
  test('the player API: unknown key 401, no API key needed, bad body 400', async () => {
    const r = await player('not-a-real-key-42', '/ping');
    expect(r).toEqual({ status: 401, body: { error: expect.objectContaining({ code: 'UNAUTHENTICATED', message: 'unknown registration key' }) } });
    const d = (await call('POST', '/devices', { name: 'Bad body' })).body;
    expect((await player(d.registration_key, '/ping', { cpu_usage: -5 })).body.error.field).toBe('cpu_usage');
  });
  test("the reference's Device and PingData members: stored from the ping, derived, or null", async () => {
    const d = (
      await call('POST', '/devices', {
        name: 'Reference shape',
        location: { city: 'Oslo', county: 'Viken', postal_code: '0150', address: 'Street 1' },
        device_type: { name: 'Tizen' },
      })
    ).body;
    expect(d).toMatchObject({
      in_sync: false,
      last_update: null,
      deactivated: false,
      serial_number: null,
      mac_address: null,
      beacon: null,
      service_level: null,
      language_code: null,
      last_service: null,
      encrypted_registration_key: null,
    });
    expect(d.location).toMatchObject({ city: 'Oslo', county: null, postal_code: null, address: null });
    expect(d.device_type).toMatchObject({ name: 'Tizen', device_caps: null });
    const ping = {
      cpu_usage: 12,
      memory_usage: 30,
      disk_usage: 40,
      mac_address: 'aa:bb:cc:dd:ee:ff',
      bytes_received: 123456789,
      transfer_rate: 2048,
      uptime: 3_600_000,
      download_pct_complete: 60,
      type: 'heartbeat',
      meta: { serial_number: 'SN-42', firmware: null },
    };
    expect((await player(d.registration_key, '/ping', ping)).status).toBe(200);
    const got = (await call('GET', `/devices/${d.id}`)).body;
    expect(got).toMatchObject({ in_sync: false, mac_address: 'aa:bb:cc:dd:ee:ff', serial_number: 'SN-42', last_update: got.ping_data.timestamp });
    const { cpu_usage: _cpu, memory_usage: _memory, disk_usage: _disk, mac_address: _mac, ...asSent } = ping;
    expect(got.ping_data).toMatchObject({ ...asSent, snap: null, os_version: null });
    const byKey = await call('GET', `/devices/${d.registration_key}/pingdata`);
    expect(byKey.body).toMatchObject({ bytes_received: 123456789, type: 'heartbeat', cpu_temperature: null, current_schedule: null });
    // Download complete: in sync. A ping without the figures answers 0 where the reference's type is non-nullable (what its own service answers), null elsewhere.
    await player(d.registration_key, '/ping', { download_pct_complete: 100 });
    const synced = (await call('GET', `/devices/${d.id}`)).body;
    expect(synced).toMatchObject({ in_sync: true, serial_number: null });
    expect(synced.ping_data).toMatchObject({ cpu_usage: 0, bytes_received: 0, transfer_rate: 0, cpu_temperature: null, meta: null });
    // No progress reported: in sync while online.
    await player(d.registration_key, '/ping', {});
    expect((await call('GET', `/devices?id=${d.id}`)).body[0]).toMatchObject({ in_sync: true, is_online: true });
  });
  test("POST /devices takes the reference's activation_code as the registration key; null names: 400 on create, kept on PUT", async () => {
    const code = 'ACTIVATION-code_0123456789abcdef0123';
    const r = await call('POST', `/devices?activation_code=${code}`, { name: 'Paired' });
    expect(r.status).toBe(201);
    expect(r.body.registration_key).toBe(code);
    expect((await call('POST', '/devices?activation_code=short', { name: 'x' })).body.error.field).toBe('activation_code');
    const nullName = await call('POST', '/devices', { name: null });
    expect(nullName.status).toBe(400);
    expect(nullName.body.error.field).toBe('name');
    // The reference's DeviceRequest as a client sends it: null name keeps it, the rest replaces.
    expect(
      (
        await call('PUT', `/devices/${r.body.id}`, {
          name: null,
          tags: 'x,y',
          timeZone: 'Europe/Oslo',
          language_code: null,
          group_id: null,
          last_service: null,
          mac_address: null,
          location: null,
          beacon: null,
        })
      ).status,
    ).toBe(204);
    expect((await call('GET', `/devices/${r.body.id}`)).body).toMatchObject({ name: 'Paired', tags: 'x,y', timezone: 'Europe/Oslo' });
  });
  test('POST /devices/{id}/track: 204 like the reference; a null or missing event_name is 400 naming it', async () => {
    const d = (await call('POST', '/devices', { name: 'Tracked' })).body;
    const r = await call('POST', `/devices/${d.id}/track`, { session_id: 's', event_name: 'touch', properties: { zone: 'A' } });
    expect(r.status).toBe(204);
    expect((await call('POST', `/devices/${d.id}/track`, { session_id: 's' })).status).toBe(400);
    const nullName = await call('POST', `/devices/${d.id}/track`, { session_id: 's', event_name: null });
    expect(nullName.status).toBe(400);
    expect(nullName.body.error.field).toBe('event_name');
  });
});

describe('demo-like partial pings through every device read (issue 20, finding 10)', () => {
  // The demo simulator's ping (launcher/src/demo/ping-simulator.ts): no bytes_received, no transfer_rate.
  const DEMO_PING = {
    cpu_usage: 31.5,
    memory_usage: 47,
    disk_usage: 41,
    player_version: '4.2.0',
    os_version: 'Android 13',
    ip_address: '10.0.0.11',
    uptime: 5000,
  };
  test.each([
    ['the demo ping', DEMO_PING],
    ['a ping with one figure', { player_version: '1.0' }],
    ['an empty ping', {}],
  ])('%s: the reference non-nullable figures are numbers, never null (each response also checked against the reference)', async (_name, ping) => {
    const made = await call('POST', '/devices', { name: `Partial ping ${_name}` });
    const key = made.body.registration_key as string;
    expect(
      (await fetch(`${h.baseUrl}/player/${key}/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ping) })).status,
    ).toBe(200);
    const reads = [
      (await call('GET', `/devices/${made.body.id}`)).body.ping_data,
      ((await call('GET', '/devices?take=1000')).body as Json[]).find((d) => d.id === made.body.id)!.ping_data,
      (await call('GET', `/devices/pingdata?registration_key=${key}`)).body,
      (await call('GET', `/devices/${key}/pingdata`)).body,
    ];
    for (const p of reads) {
      for (const f of ['cpu_usage', 'memory_usage', 'disk_usage', 'bytes_received', 'transfer_rate']) {
        expect([f, typeof p[f]]).toEqual([f, 'number']);
        if (!(f in ping)) expect([f, p[f]]).toEqual([f, 0]);
      }
      expect(p.bytes_received).toBe(0);
    }
  });
});

describe('alerts', () => {
  test('a rule opens an alert from a ping; REST lists, snoozes (PUT), resolves (PATCH); auto-close', async () => {
    const rule = await h.gql(
      'mutation { createAlertRule(input: { name: "E2E CPU", conditions: [{ type: CPU_ABOVE, threshold: 80 }] }) { success alertRule { id ruleSet } } }',
    );
    expect(rule.body.data?.createAlertRule.success).toBe(true);
    const d = (await call('POST', '/devices', { name: 'Hot e2e' })).body;
    // 85: above this rule's 80, below the demo's High CPU rule (90).
    await player(d.registration_key, '/ping', { cpu_usage: 85 });
    const list = await call('GET', `/alerts?device_id=${d.id}&active_only=true`);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const alert = list.body[0];
    expect(alert).toMatchObject({
      is_active: true,
      alert_rule: { name: 'E2E CPU', is_enabled: true },
      devices: [{ id: d.id, name: 'Hot e2e' }],
      snoozed_until: null,
      resolved_on: null,
    });
    expect(JSON.parse(alert.alert_rule.rule_set)).toEqual({ match: 'any', conditions: [{ type: 'cpu_above', threshold: 80 }] });
    expect((await call('GET', `/alerts/${alert.id}`)).body).toEqual(alert);
    expect((await call('GET', `/alerts/${alert.id}`, undefined, { key: otherKey })).status).toBe(404);
    expect((await call('PUT', `/alerts/${alert.id}`, { snoozed_until: '2999-01-01T00:00:00Z' }, { key: otherKey })).status).toBe(404);

    const snoozed = await call('PUT', `/alerts/${alert.id}`, { snoozed_until: '2999-01-01T00:00:00Z' });
    expect(snoozed.body).toMatchObject({ is_active: false, snoozed_until: '2999-01-01T00:00:00Z' });
    expect((await call('GET', `/alerts?device_id=${d.id}&active_only=true`)).body).toEqual([]);
    expect((await call('PUT', `/alerts/${alert.id}`, { snoozed_until: 'soon' })).body.error.field).toBe('snoozed_until');
    expect((await call('PATCH', `/alerts/${alert.id}`, [{ op: 'replace', path: '/id', value: 'x' }])).status).toBe(400);
    const resolvedOn = new Date(Date.now() - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const resolved = await call('PATCH', `/alerts/${alert.id}`, [{ op: 'replace', path: '/resolved_on', value: resolvedOn }], {
      type: 'application/json-patch+json',
    });
    expect(resolved.body).toMatchObject({ resolved_on: resolvedOn, is_active: false });
    expect((await call('GET', `/alerts?resolved=true&device_id=${d.id}`)).body.map((a: Json) => a.id)).toEqual([alert.id]);
    expect((await call('PUT', `/alerts/${alert.id}`, { resolved_on: null })).status).toBe(422);

    // A second device: its alert closes itself when the CPU comes down.
    const d2 = (await call('POST', '/devices', { name: 'Cooling' })).body;
    await player(d2.registration_key, '/ping', { cpu_usage: 85 });
    expect((await call('GET', `/alerts?device_id=${d2.id}&active_only=true`)).body).toHaveLength(1);
    await player(d2.registration_key, '/ping', { cpu_usage: 10 });
    const closed = (await call('GET', `/alerts?device_id=${d2.id}`)).body;
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ is_active: false, auto_resolved: true });
    expect(closed[0].resolved_on).toMatch(/Z$/);
    expect((await call('GET', '/alerts?take=1&page=0')).body).toHaveLength(1);
    expect((await call('GET', '/alerts', undefined, { key: otherKey })).body).toEqual([]);
  });
});

describe('GraphQL through the gateway', () => {
  test('device mutations and a bulk with one foreign id', async () => {
    const created = await h.gql('mutation { createDevice(input: { name: "GQL one", tags: ["x"] }) { success device { id name registrationKey } } }');
    const id = created.body.data?.createDevice.device.id;
    expect(created.body.data?.createDevice).toMatchObject({ success: true, device: { name: 'GQL one' } });
    const foreign = (await call('POST', '/devices', { name: 'Theirs' }, { key: otherKey })).body.id;
    const bulk = await h.gql(
      'mutation($i: BulkDeviceCommandsInput!) { sendBulkDeviceCommands(input: $i) { totalDevices successCount failureCount results { success deviceId error } } }',
      { variables: { i: { deviceIds: [id, foreign], commands: [{ command: 'clear_cache' }] } } },
    );
    expect(bulk.body.data?.sendBulkDeviceCommands).toMatchObject({ totalDevices: 2, successCount: 1, failureCount: 1 });
    const single = await h.gql(
      'mutation($d: String!) { sendDeviceCommand(deviceId: $d, commands: [{ command: "volume", arg: "x" }]) { success error deviceId commandCount } }',
      { variables: { d: id } },
    );
    expect(single.body.data?.sendDeviceCommand).toMatchObject({ success: false, commandCount: null });
    expect(single.body.data?.sendDeviceCommand.error).toMatch(/volume/);
    const dc = await h.gql('{ displayCommands { command } }');
    expect(dc.body.data?.displayCommands).toHaveLength(9);
  });
  test('the simulator-ready demo: rules seeded; offline demo screens raise alerts', async () => {
    const r = await h.gql('{ alertRules { name isEnabled } alert(activeOnly: true) { alertRule { name } devices { name isOnline } } }');
    expect(r.body.data?.alertRules).toEqual(
      expect.arrayContaining([
        { name: 'High CPU', isEnabled: true },
        { name: 'Offline for 30 minutes', isEnabled: true },
      ]),
    );
    const offline = (r.body.data?.alert as Json[]).filter((a) => a.alertRule.name === 'Offline for 30 minutes');
    expect(offline).toHaveLength(2);
    expect(offline.every((a) => a.devices[0].isOnline === false)).toBe(true);
  });
});
