/**
 * device.offline: a device silent for the online window (600 s here) is announced once by the
 * sweep, and device.online again when it pings; a device that keeps pinging is never announced.
 * The clock is the fixture's (no sleeps); the sweep reads only the due entries, not every device.
 */
import { pushEvent, type PushEvent, type PushEvents } from '@pylon/kit';
import { createDevice, type Fixture } from '../../../../test/fixtures/subgraph.js';
import { startPlayerFixture, type PlayerFixture } from '../../../../test/fixtures/player-http.js';

let f: PlayerFixture;
const seen: PushEvent[] = [];
const events: PushEvents = { emit: (account, type, data, at) => void seen.push(pushEvent(account, type, data, at) as PushEvent) };
const WINDOW_MS = 600_000;

beforeAll(async () => {
  f = await startPlayerFixture({ pushEvents: events });
});
afterAll(() => f.close());

/** Counts the device reads of a runtime's repository until `restore`. */
function countReads(repo: Fixture['sg']['runtime']['repo']): { calls: number; restore(): void } {
  const original = repo.findDevice;
  const counter = {
    calls: 0,
    restore: () => {
      repo.findDevice = original;
    },
  };
  repo.findDevice = (...args) => {
    counter.calls++;
    return original.apply(repo, args);
  };
  return counter;
}

const of = (type: string, id: string) => seen.filter((e) => e.type === type && (e.data as { device_id?: string }).device_id === id);

test('silent for the window: one device.offline; pinging again: device.online; a pinging device stays online', async () => {
  const silent = await createDevice(f, { name: 'Goes quiet', tags: ['lobby'] });
  const busy = await createDevice(f, { name: 'Keeps pinging' });
  const t0 = f.clock.now;
  await f.player.ping(silent.registrationKey);
  await f.player.ping(busy.registrationKey);
  expect(of('device.online', silent.id)).toHaveLength(1);

  // Half a window later only the busy one pings; at the end of the window nobody is offline yet.
  f.clock.now = t0 + WINDOW_MS / 2;
  await f.player.ping(busy.registrationKey);
  f.clock.now = t0 + WINDOW_MS;
  expect((await f.sg.runtime.sweep()).offline).toBe(0);

  // One millisecond past it the silent one is offline, announced once with its last ping.
  f.clock.now = t0 + WINDOW_MS + 1;
  expect((await f.sg.runtime.sweep()).offline).toBe(1);
  expect(of('device.offline', silent.id)).toEqual([
    expect.objectContaining({
      account_id: 'acc-a',
      timestamp: new Date(t0 + WINDOW_MS + 1).toISOString(),
      data: { device_id: silent.id, device_group_id: null, device_tags: ['lobby'], last_ping_at: new Date(t0).toISOString() },
    }),
  ]);
  expect(of('device.offline', busy.id)).toEqual([]);
  f.clock.now += 3_600_000;
  const later = await f.sg.runtime.sweep();
  // The busy device's own silence now reached the window: announced once too; the silent one not again.
  expect(later.offline).toBe(1);
  expect(of('device.offline', silent.id)).toHaveLength(1);
  expect(of('device.offline', busy.id)).toHaveLength(1);

  // Back: device.online, and offline again after another silent window.
  await f.player.ping(silent.registrationKey);
  expect(of('device.online', silent.id)).toHaveLength(2);
  f.clock.now += WINDOW_MS + 1;
  await f.sg.runtime.sweep();
  expect(of('device.offline', silent.id)).toHaveLength(2);
  // The announced order per device alternates online / offline.
  expect(seen.filter((e) => (e.data as { device_id?: string }).device_id === silent.id && e.type.startsWith('device.o')).map((e) => e.type)).toEqual([
    'device.online',
    'device.offline',
    'device.online',
    'device.offline',
  ]);
});

test('the sweep reads only due devices, and two replicas sweeping at once announce each silence once', async () => {
  const fleet = await Promise.all(Array.from({ length: 30 }, (_, i) => createDevice(f, { name: `Fleet ${i}` })));
  const quiet = await createDevice(f, { name: 'Quiet one' });
  const t0 = f.clock.now;
  for (const d of [...fleet, quiet]) await f.player.ping(d.registrationKey);
  // The fleet pings just before the window ends; the quiet one does not.
  f.clock.now = t0 + WINDOW_MS - 1000;
  for (const d of fleet) await f.player.ping(d.registrationKey);
  f.clock.now = t0 + WINDOW_MS - 500;
  const reads = countReads(f.sg.runtime.repo);
  expect((await f.sg.runtime.sweep()).offline).toBe(0);
  expect(reads.calls).toBe(0); // nothing due: no device read at all

  const replica = f.replica({ pushEvents: events });
  f.clock.now = t0 + WINDOW_MS + 1;
  const [a, b] = await Promise.all([f.sg.runtime.sweep(), replica.runtime.sweep()]);
  expect(a.offline + b.offline).toBe(1);
  expect(of('device.offline', quiet.id)).toHaveLength(1);
  for (const d of fleet) expect(of('device.offline', d.id)).toEqual([]);
  // The fleet's entries were due too (lazily rescheduled): each read once by this replica at most.
  expect(reads.calls).toBeLessThanOrEqual(fleet.length + 1);
  reads.restore();
  // Rescheduled to their last ping + window: the next sweep reads none of them.
  const again = countReads(f.sg.runtime.repo);
  await f.sg.runtime.sweep();
  expect(again.calls).toBe(0);
  again.restore();
});
