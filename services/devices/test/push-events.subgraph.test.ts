/**
 * Push events from the devices subgraph: each change (register, update, delete, first ping, command
 * delivered / acknowledged, alert opened / snoozed / resolved) puts one event on the durable
 * `push.events` topic through the publisher, with the account, the resource id and the device's
 * group and tags; another account's changes carry its own account id.
 */
import { createMemoryStream } from '@pylon/adapters/memory';
import { BufferedPublisher, PUSH_EVENTS_TOPIC, pushEventsOver, type EventStream, type PushEvent } from '@pylon/kit';
import { createDevice, principal, startFixture, type Fixture } from './fixtures/subgraph.js';
import { servePlayer, type PlayerHttp } from './fixtures/player-http.js';

let f: Fixture;
let player: PlayerHttp;
let stream: EventStream;
let publisher: BufferedPublisher<PushEvent>;
const seen: PushEvent[] = [];

beforeAll(async () => {
  stream = createMemoryStream();
  publisher = new BufferedPublisher<PushEvent>(stream, PUSH_EVENTS_TOPIC, { maxWaitMs: 5 });
  f = await startFixture({ stream, pushEvents: pushEventsOver(publisher) });
  await stream.subscribe(PUSH_EVENTS_TOPIC, { group: 'test', maxWaitMs: 5 }, async (batch) => {
    seen.push(...batch.map((m) => m.value as PushEvent));
  });
  player = await servePlayer(f.sg.runtime);
});
afterAll(async () => {
  await player.close();
  await f.close();
  await publisher.close();
  await stream.close();
});

/** Polls (60 s limit) until an event of the type about the id arrives. */
async function eventOf(type: string, match: (e: PushEvent) => boolean): Promise<PushEvent> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const e = seen.find((x) => x.type === type && match(x));
    if (e) return e;
    if (Date.now() > deadline) throw new Error(`no ${type} event; seen: ${seen.map((x) => x.type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const about = (id: string) => (e: PushEvent) => (e.data as { device_id?: string }).device_id === id;

test('register, update and delete each produce one event naming the device, its group and tags', async () => {
  const { id } = await createDevice(f, { name: 'Push 1', tags: ['floor-1'] });
  const registered = await eventOf('device.registered', about(id));
  expect(registered).toMatchObject({ account_id: 'acc-a', data: { device_id: id, name: 'Push 1', device_tags: ['floor-1'], device_group_id: null } });
  expect(registered.id).toMatch(/^evt_[0-9a-f]{32}$/);
  expect(Date.parse(registered.timestamp)).not.toBeNaN();

  const r = await f.run('mutation($id: ID!, $i: UpdateDeviceInput!) { updateDevice(id: $id, input: $i) { success error } }', { id, i: { name: 'Push 1b' } });
  expect(r.data?.updateDevice).toMatchObject({ success: true });
  expect((await eventOf('device.updated', about(id))).data).toMatchObject({ name: 'Push 1b', changed_fields: ['name'] });

  const d = await f.run('mutation($id: ID!) { deleteDevice(id: $id) { success } }', { id });
  expect(d.data?.deleteDevice).toMatchObject({ success: true });
  await eventOf('device.deleted', about(id));
  expect(seen.filter((e) => e.type === 'device.registered' && about(id)(e))).toHaveLength(1);
});

test('a refused change produces no event', async () => {
  const before = seen.length;
  const r = await f.run('mutation($i: CreateDeviceInput!) { createDevice(input: $i) { success } }', { i: { name: '' } });
  expect(r.data?.createDevice?.success).toBe(false);
  await publisher.flush();
  await new Promise((res) => setTimeout(res, 50));
  expect(seen.slice(before).filter((e) => e.type === 'device.registered')).toEqual([]);
});

test('first ping: device.online; a command: delivered then acknowledged', async () => {
  const { id, registrationKey } = await createDevice(f, { name: 'Push 2' });
  await f.run('mutation($d: String!, $c: [DeviceCommandInput!]!) { sendDeviceCommand(deviceId: $d, commands: $c) { success } }', {
    d: id,
    c: [{ command: 'restart' }],
  });
  const ping = await player.ping(registrationKey);
  const [cmd] = ping.body.commands as { id: string }[];
  expect((await eventOf('device.online', about(id))).data).toMatchObject({ device_id: id });
  expect((await eventOf('command.delivered', about(id))).data).toMatchObject({ command_id: cmd!.id, command: 'restart', status: 'delivered' });
  await player.ack(registrationKey, cmd!.id, { status: 'acknowledged' });
  expect((await eventOf('command.acknowledged', about(id))).data).toMatchObject({ command_id: cmd!.id, status: 'acknowledged' });
  // A second ping inside the online window is not "online" again.
  await player.ping(registrationKey);
  await publisher.flush();
  await new Promise((res) => setTimeout(res, 50));
  expect(seen.filter((e) => e.type === 'device.online' && about(id)(e))).toHaveLength(1);
});

test("another account's change carries its own account id", async () => {
  const { id } = await createDevice(f, { name: 'Push B' }, principal('acc-b'));
  expect((await eventOf('device.registered', about(id))).account_id).toBe('acc-b');
});
