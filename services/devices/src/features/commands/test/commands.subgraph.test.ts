/** sendDeviceCommand / sendBulkDeviceCommands: results, every validation refusal, tenancy, bulk speed; delivery and ack through the player API. */
import { TOPICS } from '@pylon/kit';
import { createDevice, principal } from '../../../../test/fixtures/subgraph.js';
import { startPlayerFixture, type PlayerFixture } from '../../../../test/fixtures/player-http.js';
import { newDeviceRecord } from '../../../domain/device.js';

let f: PlayerFixture;
beforeAll(async () => {
  f = await startPlayerFixture({ watch: TOPICS.pings });
});
afterAll(() => f.close());

const SEND =
  'mutation($d: String!, $c: [DeviceCommandInput!]!) { sendDeviceCommand(deviceId: $d, commands: $c) { success error errorCode errorField deviceId commandCount commands { id command arg status } } }';
const BULK =
  'mutation($i: BulkDeviceCommandsInput!) { sendBulkDeviceCommands(input: $i) { totalDevices successCount failureCount results { success deviceId error } } }';
const send = (deviceId: string, commands: unknown, who = principal('acc-a')) => f.run(SEND, { d: deviceId, c: commands }, who);
const statuses = async (deviceId: string) =>
  (await f.run('query($d: String!) { deviceCommands(deviceId: $d) { id command status } }', { d: deviceId })).data!.deviceCommands as {
    id: string;
    command: string;
    status: string;
  }[];

describe('sendDeviceCommand', () => {
  test('queues the commands; the result has deviceId and commandCount', async () => {
    const { id } = await createDevice(f, { name: 'Cmd 1' });
    const r = (await send(id, [{ command: 'restart' }, { command: 'volume', arg: '40' }])).data!.sendDeviceCommand;
    expect(r).toMatchObject({
      success: true,
      error: null,
      deviceId: id,
      commandCount: 2,
      commands: [
        { command: 'restart', arg: null, status: 'QUEUED' },
        { command: 'volume', arg: '40', status: 'QUEUED' },
      ],
    });
  });
  test.each([
    [[{ command: 'selfdestruct' }], 'commands[0].command', /unknown command 'selfdestruct'/],
    [[{ command: 'volume' }], 'commands[0].arg', /integer from 0 to 100/],
    [[{ command: 'restart' }, { command: 'volume', arg: '101' }], 'commands[1].arg', /integer from 0 to 100/],
    [[{ command: 'volume', arg: '-1' }], 'commands[0].arg', /integer/],
    [[{ command: 'volume', arg: '50.5' }], 'commands[0].arg', /integer/],
    [[{ command: 'volume', arg: 'loud' }], 'commands[0].arg', /integer/],
    [[], 'commands', /at least one/],
    [Array.from({ length: 21 }, () => ({ command: 'refresh' })), 'commands', /at most 20/],
  ])('refused: %j', async (commands, field, message) => {
    const { id } = await createDevice(f, { name: 'Refuse' });
    const r = (await send(id, commands)).data!.sendDeviceCommand;
    expect(r).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: field, commandCount: null });
    expect(r.error).toMatch(message);
    expect(await statuses(id)).toEqual([]);
  });
  test('unknown and foreign devices: NOT_FOUND, nothing queued', async () => {
    const { id } = await createDevice(f, { name: 'Foreign' }, principal('acc-b'));
    expect((await send('nope', [{ command: 'restart' }])).data!.sendDeviceCommand).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect((await send(id, [{ command: 'restart' }])).data!.sendDeviceCommand).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect((await f.run('query($d: String!) { deviceCommands(deviceId: $d) { id } }', { d: id }, principal('acc-b'))).data!.deviceCommands).toEqual([]);
  });
  test('Devices_Edit is required', async () => {
    const { id } = await createDevice(f, { name: 'Policy' });
    expect((await send(id, [{ command: 'restart' }], principal('acc-a', ['Devices_View']))).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('delivery through the player API', () => {
  test('the next ping updates ping data and takes the queued commands once; acks move them on', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Player 1' });
    const [restart, volume] = (await send(id, [{ command: 'restart' }, { command: 'volume', arg: '7' }])).data!.sendDeviceCommand.commands;
    const first = await f.player.ping(registrationKey, { cpu_usage: 12.5, memory_usage: 40, disk_usage: 70, player_version: '5.1', ip_address: '10.0.0.9' });
    expect(first.status).toBe(200);
    expect(first.body.device_id).toBe(id);
    expect(first.body.commands.map((c: { id: string; command: string; arg: string | null }) => [c.id, c.command, c.arg])).toEqual([
      [restart.id, 'restart', null],
      [volume.id, 'volume', '7'],
    ]);
    expect(first.body.commands[0].expires_on).toMatch(/Z$/);
    expect((await f.player.ping(registrationKey)).body.commands).toEqual([]);
    const d = (
      await f.run(
        'query($id: String!) { device(id: [$id]) { isOnline pingData { cpuUsage memoryUsage diskUsage playerVersion ipAddress externalIpAddress timestamp } } }',
        { id },
      )
    ).data!.device[0];
    expect(d).toMatchObject({ isOnline: true, pingData: { cpuUsage: null, playerVersion: null } }); // the second ping sent no figures
    expect(d.pingData.externalIpAddress).toMatch(/127\.0\.0\.1/);
    expect(Object.fromEntries((await statuses(id)).map((c) => [c.command, c.status]))).toEqual({ restart: 'DELIVERED', volume: 'DELIVERED' });

    expect(await f.player.ack(registrationKey, restart.id, { status: 'acknowledged' })).toEqual({
      status: 200,
      body: { id: restart.id, status: 'acknowledged' },
    });
    expect(await f.player.ack(registrationKey, volume.id, { status: 'failed', message: 'no audio device' })).toEqual({
      status: 200,
      body: { id: volume.id, status: 'failed' },
    });
    expect((await f.player.ack(registrationKey, restart.id, { status: 'acknowledged' })).status).toBe(200); // repeated: no change
    expect((await f.player.ack(registrationKey, restart.id, { status: 'failed' })).status).toBe(422);
    expect(Object.fromEntries((await statuses(id)).map((c) => [c.command, c.status]))).toEqual({ restart: 'ACKNOWLEDGED', volume: 'FAILED' });
    await new Promise((r) => setTimeout(r, 300));
    expect(f.seen.filter((m) => (m.value as { device_id: string }).device_id === id)).toHaveLength(2);
    expect(f.seen.find((m) => (m.value as { device_id: string }).device_id === id)?.value).toMatchObject({
      account_id: 'acc-a',
      cpu_usage: 12.5,
      player_version: '5.1',
    });
  });
  test('acks: unknown command, another device’s command, a bad status, an unknown key', async () => {
    const a = await createDevice(f, { name: 'Ack A' });
    const b = await createDevice(f, { name: 'Ack B' });
    const [cmd] = (await send(a.id, [{ command: 'refresh' }])).data!.sendDeviceCommand.commands;
    expect((await f.player.ack(a.registrationKey, 'nope')).status).toBe(404);
    expect((await f.player.ack(b.registrationKey, cmd.id)).status).toBe(404);
    expect(await f.player.ack(a.registrationKey, cmd.id, { status: 'done' })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', field: 'status' } },
    });
    expect(await f.player.ack('unknown-key-123', cmd.id)).toMatchObject({
      status: 401,
      body: { error: { code: 'UNAUTHENTICATED', message: 'unknown registration key' } },
    });
    // Acknowledging a command that was never delivered (the player saw it some other way) is accepted.
    expect((await f.player.ack(a.registrationKey, cmd.id, { status: 'delivered' })).body).toEqual({ id: cmd.id, status: 'acknowledged' });
  });
  test('expired commands are not delivered and read as EXPIRED', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Late' });
    await send(id, [{ command: 'reboot' }]);
    f.clock.now += 25 * 3600_000;
    try {
      expect((await f.player.ping(registrationKey)).body.commands).toEqual([]);
      expect((await statuses(id))[0]!.status).toBe('EXPIRED');
    } finally {
      f.clock.now -= 25 * 3600_000;
    }
  });
});

describe('sendBulkDeviceCommands', () => {
  test('one result per distinct device; unknown and foreign ids fail individually', async () => {
    const a = await createDevice(f, { name: 'Bulk A' });
    const b = await createDevice(f, { name: 'Bulk B' });
    const foreign = await createDevice(f, { name: 'Bulk foreign' }, principal('acc-b'));
    const r = (await f.run(BULK, { i: { deviceIds: [a.id, 'ghost', b.id, foreign.id, a.id], commands: [{ command: 'display_off' }] } })).data!
      .sendBulkDeviceCommands;
    expect(r).toEqual({
      totalDevices: 4,
      successCount: 2,
      failureCount: 2,
      results: [
        { success: true, deviceId: a.id, error: null },
        { success: false, deviceId: 'ghost', error: "device 'ghost' was not found" },
        { success: true, deviceId: b.id, error: null },
        { success: false, deviceId: foreign.id, error: `device '${foreign.id}' was not found` },
      ],
    });
    expect((await f.player.ping(b.registrationKey)).body.commands.map((c: { command: string }) => c.command)).toEqual(['display_off']);
    expect((await f.player.ping(foreign.registrationKey)).body.commands).toEqual([]);
  });
  test('invalid commands fail every device; an empty or oversized list is a request error', async () => {
    const a = await createDevice(f, { name: 'Bulk bad' });
    const r = (await f.run(BULK, { i: { deviceIds: [a.id, 'x'], commands: [{ command: 'volume', arg: '500' }] } })).data!.sendBulkDeviceCommands;
    expect(r).toMatchObject({ totalDevices: 2, successCount: 0, failureCount: 2 });
    expect(r.results[0].error).toMatch(/integer from 0 to 100/);
    expect((await f.run(BULK, { i: { deviceIds: [], commands: [{ command: 'restart' }] } })).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(
      (await f.run(BULK, { i: { deviceIds: Array.from({ length: 5001 }, (_, i) => `d${i}`), commands: [{ command: 'restart' }] } })).errors?.[0]?.message,
    ).toMatch(/at most 5000/);
  });
  test('one batched insert for every device: a store that refuses it fails each found device with the same retryable error', async () => {
    const a = await createDevice(f, { name: 'Bulk refused A' });
    const b = await createDevice(f, { name: 'Bulk refused B' });
    // The store's refusal, injected at the repository (the embedded store cannot be made to refuse one collection's insert).
    const commands = f.sg.runtime.commands;
    const calls: string[][] = [];
    commands.queue = async (_tenant, records) => {
      calls.push(records.map((c) => c.deviceId));
      throw new Error('disk full');
    };
    try {
      const r = (await f.run(BULK, { i: { deviceIds: [a.id, 'ghost', b.id], commands: [{ command: 'refresh' }] } })).data!.sendBulkDeviceCommands;
      expect(calls).toEqual([[a.id, b.id]]);
      expect(r).toEqual({
        totalDevices: 3,
        successCount: 0,
        failureCount: 3,
        results: [
          { success: false, deviceId: a.id, error: 'the commands could not be queued; retry' },
          { success: false, deviceId: 'ghost', error: "device 'ghost' was not found" },
          { success: false, deviceId: b.id, error: 'the commands could not be queued; retry' },
        ],
      });
    } finally {
      Reflect.deleteProperty(commands, 'queue');
    }
    // Nothing was announced: the next ping finds no command.
    expect((await f.player.ping(a.registrationKey)).body.commands).toEqual([]);
  });
  test('1,000 devices in one call: batched reads and writes, well under a few seconds', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 100) {
      const made = await Promise.all(Array.from({ length: 100 }, (_, j) => f.sg.repo.addDevice('acc-bulk', newDeviceRecord(`B${i + j}`, `bulk-key-${i + j}`))));
      ids.push(...made.map((d) => d.id));
    }
    const started = performance.now();
    const r = (await f.run(BULK, { i: { deviceIds: ids, commands: [{ command: 'refresh' }, { command: 'volume', arg: '30' }] } }, principal('acc-bulk'))).data!
      .sendBulkDeviceCommands;
    const ms = performance.now() - started;
    expect(r).toMatchObject({ totalDevices: 1000, successCount: 1000, failureCount: 0 });
    expect(ms).toBeLessThan(5000);
    expect((await f.player.ping('bulk-key-999')).body.commands.map((c: { command: string }) => c.command)).toEqual(['refresh', 'volume']);
  });
});
