/**
 * The live stream's isolation and policies, on the real log and router (lmdb store, an HTTP
 * server on a free port): an account sees only its own events; a caller without the policy an
 * event type names does not get those events; another account's event id is not a resume point.
 */
import express from 'express';
import { createLogger, POLICIES, PUSH_EVENTS_TOPIC, pushEvent, type DocumentStore, type Principal, type PushEvent } from '@pylon/kit';
import { createMemoryLeases, createMemoryPubSub, createMemoryStream } from '@pylon/adapters/memory';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { openEventStream, serveOnFreePort, testPrincipal, until } from '@pylon/kit/testing';
import { PushEventLog, startEventLog } from '../event-log.js';
import { createEventsStreamHttp } from '../http/events-stream.http.js';

let store: DocumentStore;
let log: PushEventLog;
let server: Awaited<ReturnType<typeof serveOnFreePort>>;
let base: string;
let stream: ReturnType<typeof createEventsStreamHttp>;
const KEYS: Record<string, Principal> = {
  a: testPrincipal('acc-a'),
  b: testPrincipal('acc-b'),
  // Account A, without Devices_View: device events are not theirs to read; alerts are.
  'a-no-devices': testPrincipal(
    'acc-a',
    POLICIES.filter((p) => p !== 'Devices_View'),
  ),
};

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-sse-');
  log = new PushEventLog(store);
  stream = createEventsStreamHttp(log, {
    authenticate: async (req) => KEYS[String(req.get('x-service-apikey'))] ?? null,
    pollMs: 20,
    leases: createMemoryLeases(),
  });
  server = await serveOnFreePort(express().use(stream));
  base = server.base;
});
afterAll(async () => {
  stream.closeAll();
  await server.close();
  await store.close();
});

/** Reads the stream for `ms` and returns the events it sent. */
async function read(key: string, ms: number, lastEventId?: string): Promise<PushEvent[]> {
  const ac = new AbortController();
  const res = await fetch(`${base}/events/stream`, {
    headers: { 'x-service-apikey': key, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: ac.signal,
  });
  if (res.status !== 200) return Promise.reject(Object.assign(new Error(`status ${res.status}`), { status: res.status }));
  let text = '';
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
  } catch {
    /* aborted */
  }
  clearTimeout(timer);
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as PushEvent);
}

test('each account sees its own events; a caller without Devices_View gets no device events; a foreign id is no resume point', async () => {
  const start = pushEvent('acc-a', 'alert.opened', { device_id: 'd-a', alert_id: 'al-0', alert_rule_id: 'r', rule_name: 'r', reason: 'start' });
  await log.append([start as PushEvent]);
  const evA = [
    pushEvent('acc-a', 'device.registered', { device_id: 'd-a', name: 'A' }),
    pushEvent('acc-a', 'alert.opened', { device_id: 'd-a', alert_id: 'al-1', alert_rule_id: 'r', rule_name: 'r', reason: 'x' }),
  ] as PushEvent[];
  const evB = [pushEvent('acc-b', 'device.registered', { device_id: 'd-b', name: 'B' })] as PushEvent[];
  await log.append([...evA, ...evB]);

  const [a, b, limited] = await Promise.all([read('a', 400, start.id), read('b', 400), read('a-no-devices', 400, start.id)]);
  expect(a.map((e) => e.id)).toEqual(evA.map((e) => e.id));
  expect(b).toEqual([]); // B started at its head: nothing new, and nothing of A's
  expect(limited.map((e) => e.type)).toEqual(['alert.opened']);

  const fromB = await read('b', 400, evA[0]!.id).catch((e: { status: number }) => e.status);
  expect(fromB).toBe(410);
  const bResumed = await read('b', 400, evB[0]!.id);
  expect(bResumed).toEqual([]);
});

test("a stream follows its caller's policies: a type it lost stops at the next re-check; losing every type ends the stream", async () => {
  KEYS.demoted = testPrincipal('acc-a');
  const stream = await openEventStream(`${base}/events/stream`, { 'x-service-apikey': 'demoted' });
  expect(stream.status).toBe(200);
  try {
    await until('the stream open', () => stream.text().includes('stream open'), 30_000);
    // Devices_View taken away while the stream is open; the re-check (every 2 s) sees it.
    KEYS.demoted = testPrincipal(
      'acc-a',
      POLICIES.filter((p) => p !== 'Devices_View'),
    );
    await new Promise((r) => setTimeout(r, 2_500));
    const device = pushEvent('acc-a', 'device.registered', { device_id: 'd-demoted', name: 'after' }) as PushEvent;
    const alert = pushEvent('acc-a', 'alert.opened', {
      device_id: 'd-demoted',
      alert_id: 'al-demoted',
      alert_rule_id: 'r',
      rule_name: 'r',
      reason: 'x',
    }) as PushEvent;
    await log.append([device, alert]);
    await until('the alert on the stream', () => stream.text().includes('al-demoted'), 30_000);
    expect(stream.text()).not.toContain('"name":"after"');
    // Every readable type gone: the stream ends, saying why.
    KEYS.demoted = { ...testPrincipal('acc-a', []), roles: [] };
    await until('the stream to end', () => stream.ended(), 30_000);
    expect(stream.text()).toMatch(/event: error\ndata: .*FORBIDDEN/);
  } finally {
    stream.close();
  }
}, 90_000);

test('a caller whose policies read no event type is refused (403)', async () => {
  KEYS.none = { ...testPrincipal('acc-a', []), roles: [] };
  const r = await fetch(`${base}/events/stream`, { headers: { 'x-service-apikey': 'none' } });
  expect(r.status).toBe(403);
});

test("with the writer's notices an idle stream does not read the log on a timer, and a new event still arrives at once (issue 34, M2)", async () => {
  // The real log, counted: how often an open stream reads it.
  class CountedLog extends PushEventLog {
    reads = 0;
    override after(...args: Parameters<PushEventLog['after']>) {
      this.reads++;
      return super.after(...args);
    }
  }
  const counted = new CountedLog(store);
  const pubsub = createMemoryPubSub();
  const events = createMemoryStream();
  const writer = await startEventLog({ stream: events, log: counted, logger: createLogger({ level: 'silent' }), pubsub });
  const notified = createEventsStreamHttp(counted, {
    authenticate: async (req) => KEYS[String(req.get('x-service-apikey'))] ?? null,
    appended: pubsub,
    leases: createMemoryLeases(),
  });
  const srv = await serveOnFreePort(express().use(notified));
  const ac = new AbortController();
  try {
    const res = await fetch(`${srv.base}/events/stream`, {
      headers: { 'x-service-apikey': 'a' },
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    let text = '';
    void (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
      } catch {
        /* aborted */
      }
    })();
    await until('the stream open', () => text.includes('stream open'), 30_000);
    const before = counted.reads;
    // Idle for 1.5 s: reads only at the credential re-check (every 2 s), not every 200 ms (8 reads before).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(counted.reads - before).toBeLessThanOrEqual(1);
    const sent = Date.now();
    const e = pushEvent('acc-a', 'device.registered', { device_id: 'd-note', name: 'Noticed' }) as PushEvent;
    await events.publish(PUSH_EVENTS_TOPIC, [{ key: 'acc-a', value: e }]);
    await until('the event on the stream', () => text.includes('d-note'), 30_000);
    console.log(`event to stream through the writer's notice: ${Date.now() - sent} ms; ${counted.reads - before} log reads while idle 1.5 s`);
  } finally {
    ac.abort();
    notified.closeAll();
    await srv.close();
    await writer.close();
    await events.close();
    await pubsub.close();
  }
}, 60_000);
