/** The player API over HTTP: ping validation, screenshots, events, long-poll, and its refusals. */
import { TOPICS } from '@pylon/kit';
import { createDevice, principal } from '../../../../test/fixtures/subgraph.js';
import { JPEG, servePlayer, startPlayerFixture, type PlayerFixture } from '../../../../test/fixtures/player-http.js';

let f: PlayerFixture;
beforeAll(async () => {
  f = await startPlayerFixture({ watch: TOPICS.events });
});
afterAll(() => f.close());

const putSnap = (key: string, body: Buffer, type = 'image/jpeg') =>
  fetch(`${f.player.url}/player/${key}/snap`, { method: 'PUT', headers: { 'content-type': type }, body });
const snapOf = async (id: string) =>
  (await f.run('query($id: String!) { device(id: [$id], includeSnap: true) { snap } }', { id })).data!.device[0].snap as string | null;

describe('ping', () => {
  test.each([
    [{ cpu_usage: 150 }, 'cpu_usage'],
    [{ memory_usage: 'high' }, 'memory_usage'],
    [{ favourite_colour: 'blue' }, 'favourite_colour'],
    [{ latitude: 100 }, 'latitude'],
  ])('%j -> 400 naming the field', async (body, field) => {
    const { registrationKey } = await createDevice(f, { name: 'Validate' });
    const r = await f.player.ping(registrationKey, body);
    expect(r).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field } } });
  });
  test('unknown, malformed and deleted keys: the same 401', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Gone' });
    await f.run('mutation($id: ID!) { deleteDevice(id: $id) { success } }', { id });
    for (const key of ['no-such-key-000', 'x', registrationKey]) {
      expect(await f.player.ping(key)).toEqual({ status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'unknown registration key' } } });
    }
  });
  test('the full reference PingData is accepted; the server clock stamps it', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Full' });
    const body = {
      type: 'heartbeat',
      player_version: '1',
      os_version: 'Android 13',
      cpu_usage: 1,
      memory_usage: 2,
      disk_usage: 3,
      mac_address: 'aa:bb',
      timestamp: '1999-01-01T00:00:00Z',
      bytes_received: 5,
      transfer_rate: 6,
      ip_address: '10.1.1.1',
      latitude: 1.5,
      longitude: 2.5,
      current_schedule: 's1',
      uptime: 99999999999,
      external_ip_address: '1.2.3.4',
      download_pct_complete: 50,
      meta: { a: 'b' },
      cpu_temperature: 55,
    };
    expect((await f.player.ping(registrationKey, body)).status).toBe(200);
    const d = (
      await f.run(
        'query($id: String!) { device(id: [$id]) { pingData { osVersion macAddress uptime cpuTemperature latitude currentSchedule timestamp externalIpAddress } } }',
        { id },
      )
    ).data!.device[0];
    expect(d.pingData).toMatchObject({
      osVersion: 'Android 13',
      macAddress: 'aa:bb',
      uptime: 99999999999,
      cpuTemperature: 55,
      latitude: 1.5,
      currentSchedule: 's1',
      timestamp: '2026-06-01T12:00:00Z',
    });
    expect(d.pingData.externalIpAddress).not.toBe('1.2.3.4');
  });
  test('wait must be whole seconds within the cap; unknown player paths are 404 JSON', async () => {
    const { registrationKey } = await createDevice(f, { name: 'Wait' });
    expect(await f.player.ping(registrationKey, {}, '?wait=abc')).toMatchObject({ status: 400, body: { error: { field: 'wait' } } });
    expect((await f.player.ping(registrationKey, {}, '?wait=999')).status).toBe(400);
    const res = await fetch(`${f.player.url}/player/${registrationKey}/nothing`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
  test('long-poll: a command sent during the wait is returned at once', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Poller' });
    const started = Date.now();
    const polling = f.player.ping(registrationKey, {}, '?wait=20');
    await new Promise((r) => setTimeout(r, 200));
    await f.run('mutation($d: String!) { sendDeviceCommand(deviceId: $d, commands: [{ command: "screenshot" }]) { success } }', { d: id });
    const r = await polling;
    expect(r.body.commands.map((c: { command: string }) => c.command)).toEqual(['screenshot']);
    expect(Date.now() - started).toBeLessThan(5000);
  });
  test('long-poll: times out with no commands', async () => {
    const { registrationKey } = await createDevice(f, { name: 'Quiet' });
    const started = Date.now();
    expect((await f.player.ping(registrationKey, {}, '?wait=1')).body.commands).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});

describe('failed keys per address', () => {
  test('past the budget of unknown keys an address gets 429 + Retry-After on every player path, even with a right key', async () => {
    const limited = await servePlayer(f.sg.runtime, { failurePoints: 5 });
    try {
      const { registrationKey } = await createDevice(f, { name: 'Limited' });
      expect((await limited.ping(registrationKey)).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await limited.ping(`wrong-key-${i}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      const res = await fetch(`${limited.url}/player/${registrationKey}/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
      expect((await limited.ack(registrationKey, 'some-command')).status).toBe(429);
      expect(
        (await fetch(`${limited.url}/player/${registrationKey}/snap`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: JPEG })).status,
      ).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('screenshots', () => {
  test('PUT a JPEG; includeSnap returns it as base64; REST-style refusals', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Snap' });
    expect(await snapOf(id)).toBeNull();
    expect((await putSnap(registrationKey, JPEG)).status).toBe(204);
    expect(await snapOf(id)).toBe(JPEG.toString('base64'));
    expect((await f.run('query($id: String!) { device(id: [$id]) { snap } }', { id })).data!.device[0].snap).toBeNull();

    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const spoofed = await putSnap(registrationKey, png);
    expect(spoofed.status).toBe(415);
    expect(((await spoofed.json()) as { error: { message: string } }).error.message).toMatch(/JPEG/);
    expect((await putSnap(registrationKey, JPEG, 'image/png')).status).toBe(415);
    expect((await putSnap(registrationKey, Buffer.concat([JPEG, Buffer.alloc(60_000)]))).status).toBe(413);
    expect((await putSnap('unknown-key-0000', JPEG)).status).toBe(401);
    expect(await snapOf(id)).toBe(JPEG.toString('base64'));
  });
  test('a snap inline in the ping (base64) is stored too', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Inline' });
    expect((await f.player.ping(registrationKey, { snap: JPEG.toString('base64') })).status).toBe(200);
    expect(await snapOf(id)).toBe(JPEG.toString('base64'));
    expect((await f.player.ping(registrationKey, { snap: Buffer.from('not a jpeg').toString('base64') })).status).toBe(415);
  });
  test('only a whole JPEG is stored: a JPEG header followed by HTML, trailing bytes or a truncated file are 415', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Polyglot' });
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const disguised = [
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), html, Buffer.from([0xff, 0xd9])]),
      Buffer.concat([JPEG.subarray(0, 20), html]),
      Buffer.concat([JPEG, html]),
      JPEG.subarray(0, JPEG.length - 2),
    ];
    for (const body of disguised) {
      const res = await putSnap(registrationKey, body);
      expect(res.status).toBe(415);
      expect(await res.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', field: 'snap' } });
      expect((await f.player.ping(registrationKey, { snap: body.toString('base64') })).status).toBe(415);
    }
    expect(await snapOf(id)).toBeNull();
  });
});

describe('events', () => {
  test('player and GraphQL tracking publish event_logs records', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Events', location: { latitude: 1, longitude: 2 } });
    const res = await fetch(`${f.player.url}/player/${registrationKey}/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 's1', event_name: 'tap', properties: { button: 'buy' } }),
    });
    expect(res.status).toBe(202);
    const t = (
      await f.run('mutation($d: String!, $i: DeviceEventInput!) { trackDeviceEvent(deviceId: $d, input: $i) { success eventId deviceId } }', {
        d: id,
        i: { sessionId: 's2', eventName: 'scan', properties: { n: 1 } },
      })
    ).data!.trackDeviceEvent;
    expect(t).toMatchObject({ success: true, deviceId: id });
    await new Promise((r) => setTimeout(r, 300));
    const mine = f.seen.map((m) => m.value as Record<string, unknown>).filter((v) => v.device_id === id);
    expect(mine).toEqual([
      expect.objectContaining({ account_id: 'acc-a', session_id: 's1', event_name: 'tap', properties: '{"button":"buy"}', latitude: 1, longitude: 2 }),
      expect.objectContaining({ session_id: 's2', event_name: 'scan', id: t.eventId }),
    ]);
    const bad = await f.run('mutation($d: String!, $i: DeviceEventInput!) { trackDeviceEvent(deviceId: $d, input: $i) { success errorCode errorField } }', {
      d: id,
      i: { eventName: '' },
    });
    expect(bad.data!.trackDeviceEvent).toMatchObject({ success: false, errorField: 'eventName' });
    const foreign = await f.run(
      'mutation($d: String!, $i: DeviceEventInput!) { trackDeviceEvent(deviceId: $d, input: $i) { success errorCode } }',
      { d: id, i: { eventName: 'x' } },
      principal('acc-b'),
    );
    expect(foreign.data!.trackDeviceEvent).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  });
  test.each(['__proto__', 'constructor', 'prototype'])(
    'a %s key in properties is refused alike (player 400, GraphQL success:false), naming the key',
    async (key) => {
      const { id, registrationKey } = await createDevice(f, { name: `Proto ${key}` });
      const properties = `{"${key}":{"polluted":1},"ok":1}`;
      const res = await fetch(`${f.player.url}/player/${registrationKey}/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"event_name":"tap","properties":${properties}}`,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'properties', message: expect.stringContaining(`'${key}'`) } });
      const nested = await fetch(`${f.player.url}/player/${registrationKey}/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"event_name":"tap","properties":{"a":${properties}}}`,
      });
      expect(nested.status).toBe(400);
      const viaGraphql = await f.run(
        'mutation($d: String!, $i: DeviceEventInput!) { trackDeviceEvent(deviceId: $d, input: $i) { success error errorField } }',
        { d: id, i: { eventName: 'x', properties: JSON.parse(properties) } },
      );
      expect(viaGraphql.data!.trackDeviceEvent).toMatchObject({ success: false, errorField: 'properties', error: expect.stringContaining(`'${key}'`) });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );
});
