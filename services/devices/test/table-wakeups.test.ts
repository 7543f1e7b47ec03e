/**
 * Menu boards through the long-poll: a ping naming the data tables its screen shows (`?tables=`)
 * answers as soon as datatables announces a change to one of them (CHANNELS.dataTablesChanged, on
 * another replica's PubSub of the same hub), and not for another table or another account's table
 * of the same id. The parameter is bounded and validated.
 */
import { createMemoryPubSub, createMemoryPubSubHub } from '@pylon/adapters/memory';
import { CHANNELS, type DataTablesChangedEvent } from '@pylon/kit';
import { createDevice, startFixture, type Fixture } from './fixtures/subgraph.js';
import { servePlayer, type PlayerHttp } from './fixtures/player-http.js';

const hub = createMemoryPubSubHub();
const devicesBus = createMemoryPubSub(hub);
const datatablesBus = createMemoryPubSub(hub);
let f: Fixture;
let player: PlayerHttp;
let key: string;

beforeAll(async () => {
  f = await startFixture({ pubsub: devicesBus });
  player = await servePlayer(f.sg.runtime);
  key = (await createDevice(f, { name: 'Menu board' })).registrationKey;
});
afterAll(async () => {
  await player.close();
  await f.close();
  await devicesBus.close();
  await datatablesBus.close();
});

const announce = (e: DataTablesChangedEvent) => datatablesBus.publish(CHANNELS.dataTablesChanged, e);
/** Starts a long-poll and resolves once it is registered. */
async function longPoll(query: string): Promise<{ answer: Promise<{ status: number; body: any }>; started: number }> {
  const before = f.sg.runtime.wakeups.waiting;
  const started = Date.now();
  const answer = player.ping(key, {}, query);
  while (f.sg.runtime.wakeups.waiting === before) await new Promise((r) => setTimeout(r, 10));
  return { answer, started };
}

test('a change to a table the screen shows ends its wait at once', async () => {
  const { answer, started } = await longPoll('?wait=20&tables=menu-1,menu-2');
  await announce({ accountId: 'acc-a', tableIds: ['menu-2'] });
  const r = await answer;
  expect(r.status).toBe(200);
  expect(r.body.commands).toEqual([]);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(f.sg.runtime.wakeups.waiting).toBe(0);
});

test("another table, or another account's table of the same id, does not end it", async () => {
  const { answer, started } = await longPoll('?wait=2&tables=menu-1');
  await announce({ accountId: 'acc-a', tableIds: ['menu-9'] });
  await announce({ accountId: 'acc-b', tableIds: ['menu-1'] });
  expect((await answer).status).toBe(200);
  // It ran to its own timeout (2 s; timers never fire early by more than a little).
  expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
});

test('tables: at most 20 non-empty ids, else 400 naming it', async () => {
  const many = Array.from({ length: 21 }, (_, i) => `t${i}`).join(',');
  for (const q of [`?wait=1&tables=${many}`, '?wait=1&tables=a,,b', `?wait=1&tables=${'x'.repeat(201)}`, '?tables=a&tables=b']) {
    const r = await player.ping(key, {}, q);
    expect([q, r.status, r.body.error?.field]).toEqual([q, 400, 'tables']);
  }
});
