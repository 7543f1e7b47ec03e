/**
 * Player ingestion over HTTP (POST /player/{key}/playlogs, /events, /impressions): validation
 * naming the field, batch and timestamp bounds, client ids kept and retries mapped to the same ids,
 * unknown files kept with a flag, the 202 given only after the stream holds the batch (503 when it
 * cannot), unknown keys refused and counted per address, and records scoped to the key's account.
 */
import { createMemoryStream } from '@pylon/adapters/memory';
import { TOPICS, recordsOf, type EventStream, type StreamMessage } from '@pylon/kit';
import type { MediaDirectory } from '../../../index.js';
import { MAX_PLAYER_BATCH } from '../../../domain/player-records.js';
import { createDevice, principal, startFixture, type Fixture } from '../../../../test/fixtures/subgraph.js';
import { servePlayer, type PlayerHttp } from '../../../../test/fixtures/player-http.js';

type Json = Record<string, any>;
/** Each test account's media files (content's answer, stood in for by a fixed table). */
const MEDIA: Record<string, Record<string, string>> = { 'acc-a': { 'file-a': 'Lobby loop.mp4' }, 'acc-b': { 'file-b': 'Other account.png' } };
/** Validity windows of files (content expiry): 'file-expired' played until NOW - 1 h only. */
const WINDOWS: Record<string, { validFrom: string | null; validUntil: string | null }> = {
  'file-expired': { validFrom: null, validUntil: '2026-06-01T11:00:00Z' },
};
MEDIA['acc-a']!['file-expired'] = 'Summer sale.png';
const media: MediaDirectory = {
  files: async (accountId, ids) =>
    new Map(
      ids.filter((id) => MEDIA[accountId]?.[id]).map((id) => [id, { name: MEDIA[accountId]![id]!, ...(WINDOWS[id] ?? { validFrom: null, validUntil: null }) }]),
    ),
};

let f: Fixture;
let player: PlayerHttp;
let inner: EventStream;
/** Publishes wait on `gate` and fail while `failing` is set. */
const control: { failing: boolean; gate: Promise<void> | null } = { failing: false, gate: null };
const received: Record<string, StreamMessage[]> = { [TOPICS.plays]: [], [TOPICS.events]: [], [TOPICS.impressions]: [] };
const NOW = Date.parse('2026-06-01T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

beforeAll(async () => {
  inner = createMemoryStream();
  const stream: EventStream = {
    ...inner,
    async publish(topic, messages) {
      if (control.gate) await control.gate;
      if (control.failing) throw new Error('broker unreachable');
      return inner.publish(topic, messages);
    },
  };
  f = await startFixture({ stream, media, start: NOW });
  for (const topic of Object.keys(received)) {
    await inner.subscribe(topic, { group: 'test', maxWaitMs: 5 }, async (batch) => {
      // One message per held request: its records flattened, one entry each.
      for (const m of batch) for (const r of recordsOf(m.value)) received[topic]!.push({ ...m, value: r });
    });
  }
  player = await servePlayer(f.sg.runtime, { failurePoints: 5 });
});
afterAll(async () => {
  await player.close();
  await f.close();
  await inner.close();
});

const post = async (key: string, kind: string, body: unknown): Promise<{ status: number; body: Json; headers: Headers }> => {
  const res = await fetch(`${player.url}/player/${key}/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
};
const values = async (topic: string, n: number): Promise<Json[]> => {
  for (let i = 0; i < 200 && received[topic]!.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  return received[topic]!.splice(0).map((m) => m.value as Json);
};
const play = (extra: Json = {}) => ({ timestamp: at(-60_000), file_id: 'file-a', duration: 10, type: 'video', ...extra });
const impression = (extra: Json = {}) => ({
  timestamp: at(-1000),
  sensor: 'face',
  gender: 'female',
  age_range: 'AGE25TO34',
  dwell_time: 4.5,
  visitor_id: 'v1',
  ...extra,
});

describe('validation', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createDevice(f, { name: 'Validate' })).registrationKey;
  });

  test.each([
    ['playlogs', [play({ duration: -1 })], '[0].duration'],
    ['playlogs', [play(), play({ file_id: '' })], '[1].file_id'],
    ['playlogs', [play({ timestamp: 'yesterday' })], '[0].timestamp'],
    ['playlogs', [play({ colour: 'red' })], '[0].colour'],
    ['playlogs', [play({ id: 'has space' })], '[0].id'],
    ['playlogs', [play({ id: 'x1' }), play({ id: 'x1' })], '[1].id'],
    ['playlogs', [{ file_id: 'file-a', duration: 1, type: 'video' }], '[0].timestamp'],
    ['playlogs', [play({ status: 'paused' })], '[0].status'],
    ['playlogs', [play({ end_timestamp: 'later' })], '[0].end_timestamp'],
    ['playlogs', [play({ end_timestamp: at(-61_000) })], '[0].end_timestamp'],
    ['playlogs', [play({ end_timestamp: at(6 * 60_000) })], '[0].end_timestamp'],
    ['playlogs', [play({ clock_offset_ms: '12' })], '[0].clock_offset_ms'],
    ['playlogs', [play({ clock_offset_ms: 1e15 })], '[0].clock_offset_ms'],
    ['playlogs', [play({ zone_id: 'z'.repeat(201) })], '[0].zone_id'],
    ['events', [{ session_id: 's' }], '[0].event_name'],
    ['events', [{ event_name: 'tap', latitude: 91 }], '[0].latitude'],
    ['impressions', [impression({ sensor: 'sonar' })], '[0].sensor'],
    ['impressions', [impression({ gender: 'robot' })], '[0].gender'],
    ['impressions', [impression({ age_range: 'AGE99' })], '[0].age_range'],
    ['impressions', [impression({ dwell_time: 'long' })], '[0].dwell_time'],
  ])('%s %j -> 400 naming %s', async (kind, body, field) => {
    const r = await post(key, kind, body);
    expect(r).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field } } });
  });

  test('an own __proto__ key in properties is refused, naming the record', async () => {
    const r = await post(key, 'events', '[{"event_name":"tap","properties":{"__proto__":{"x":1}}}]');
    expect(r).toMatchObject({ status: 400, body: { error: { field: '[0].properties' } } });
  });

  test.each(['playlogs', 'events', 'impressions'])('%s: not an array, empty, or over the batch limit is refused', async (kind) => {
    expect(await post(key, kind, { records: [] })).toMatchObject({ status: 400, body: { error: { field: 'body' } } });
    expect(await post(key, kind, [])).toMatchObject({ status: 400, body: { error: { field: 'body' } } });
    const big = Array.from({ length: MAX_PLAYER_BATCH + 1 }, () => ({ timestamp: at(0), event_name: 'x' }));
    expect(await post(key, kind, big)).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', field: 'body' } } });
    expect((await post(key, kind, '[{')).status).toBe(400);
  });

  test('timestamps: at most 5 minutes ahead, at most the retention window old', async () => {
    expect(await post(key, 'playlogs', [play({ timestamp: at(6 * 60_000) })])).toMatchObject({ status: 400, body: { error: { field: '[0].timestamp' } } });
    expect(await post(key, 'playlogs', [play({ timestamp: at(-91 * 86_400_000) })])).toMatchObject({
      status: 400,
      body: { error: { field: '[0].timestamp' } },
    });
    expect((await post(key, 'playlogs', [play({ timestamp: at(4 * 60_000) })])).status).toBe(202);
    expect((await post(key, 'playlogs', [play({ timestamp: at(-89 * 86_400_000) })])).status).toBe(202);
    await values(TOPICS.plays, 2);
  });

  test('bodies read as body-parser read them: JSON only, compressed and chunked bodies too', async () => {
    const send = async (body: string | Uint8Array | ReadableStream, headers: Record<string, string>) => {
      const res = await fetch(`${player.url}/player/${key}/playlogs`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
      return { status: res.status, body: (await res.json()) as Json };
    };
    const json = { 'content-type': 'application/json' };
    // Not an object or array at the top, not JSON at all, empty: the same answers as before.
    expect(await send('"a string"', json)).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', message: 'the body must be a JSON object or array' } },
    });
    // The parser's position (issue 35).
    expect(await send('[{"a":', json)).toMatchObject({
      status: 400,
      body: { error: { message: 'the body is not valid JSON at position 6 (line 1, column 7): expected a value, the body ended' } },
    });
    expect(await send('', json)).toMatchObject({ status: 400, body: { error: { field: 'body' } } });
    // A byte-order mark, a charset, surrounding white space: accepted.
    const batch = JSON.stringify([play({ id: 'bom-1' })]);
    expect((await send('\ufeff' + batch, json)).status).toBe(202);
    expect((await send(` ${batch} `, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(202);
    // gzip and chunked bodies go through express.json, as before.
    const { gzipSync } = await import('node:zlib');
    expect((await send(gzipSync(JSON.stringify([play({ id: 'gz-1' })])), { ...json, 'content-encoding': 'gzip' })).status).toBe(202);
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify([play({ id: 'chunk-1' })])));
        c.close();
      },
    });
    expect((await send(chunked, json)).status).toBe(202);
    // Another media type is not parsed: the body is not an array.
    expect(await send(batch, { 'content-type': 'text/plain' })).toMatchObject({ status: 400, body: { error: { field: 'body' } } });
    expect((await values(TOPICS.plays, 4)).map((r) => r.id).sort()).toEqual(['bom-1', 'bom-1', 'chunk-1', 'gz-1']);
  });

  test('a body over 1 MB is 413', async () => {
    const r = await post(key, 'events', [{ event_name: 'x', properties: { blob: 'a'.repeat(1_100_000) } }]);
    expect(r.status).toBe(413);
  });
});

describe('ingestion', () => {
  test('play logs keep the file name, flag unknown files, keep client ids; a retry maps to the same ids', async () => {
    const d = await createDevice(f, { name: 'Lobby' });
    const batch = [play({ id: 'p-1' }), play({ file_id: 'gone-file', timestamp: at(-30_000) }), play({ file_id: 'file-b', timestamp: at(-20_000) })];
    const first = await post(d.registrationKey, 'playlogs', batch);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ accepted: 3, unknown_file_ids: ['gone-file', 'file-b'] });
    expect(first.body.ids[0]).toBe('p-1');
    const rows = await values(TOPICS.plays, 3);
    expect(rows).toEqual([
      expect.objectContaining({ id: 'p-1', account_id: 'acc-a', device_id: d.id, file_id: 'file-a', file_name: 'Lobby loop.mp4', file_known: 1 }),
      // Another account's file is as unknown as a deleted one: its name does not leak.
      expect.objectContaining({ file_id: 'gone-file', file_name: '', file_known: 0 }),
      expect.objectContaining({ file_id: 'file-b', file_name: '', file_known: 0 }),
    ]);
    expect(rows[0]!.timestamp).toBe(at(-60_000));
    const retry = await post(d.registrationKey, 'playlogs', batch);
    expect(retry.body.ids).toEqual(first.body.ids);
    expect((await values(TOPICS.plays, 3)).map((r) => r.id)).toEqual(first.body.ids);
  });

  test('a batch URL spelled otherwise (an encoded key, a trailing slash, a query) is answered as the plain one', async () => {
    const d = await createDevice(f, { name: 'Spelling' });
    const key = d.registrationKey;
    const encoded = `%${key.charCodeAt(0).toString(16)}${key.slice(1)}`;
    for (const [i, path] of [`/player/${key}/playlogs`, `/player/${key}/playlogs/`, `/player/${encoded}/playlogs`, `/player/${key}/playlogs?v=1`].entries()) {
      const send = async (body: unknown) => {
        const res = await fetch(`${player.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: res.status, cache: res.headers.get('cache-control'), body: (await res.json()) as Json };
      };
      expect(await send([play({ id: `spelled-${i}` })])).toEqual({
        status: 202,
        cache: 'no-store',
        body: { accepted: 1, ids: [`spelled-${i}`], unknown_file_ids: [] },
      });
      expect(await send([play({ duration: -1 })])).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field: '[0].duration' } } });
    }
    expect((await values(TOPICS.plays, 4)).map((r) => r.id)).toEqual(['spelled-0', 'spelled-1', 'spelled-2', 'spelled-3']);
  });

  test("a play that started outside its file's validity window is refused and never stored (content expiry); one before the edge counts", async () => {
    const d = await createDevice(f, { name: 'Expiry' });
    const expiry = Date.parse('2026-06-01T11:00:00Z') - NOW;
    const r = await post(d.registrationKey, 'playlogs', [
      play({ id: 'x-before', file_id: 'file-expired', timestamp: at(expiry - 10_000) }),
      play({ id: 'x-at', file_id: 'file-expired', timestamp: at(expiry) }),
      play({ id: 'x-after', file_id: 'file-expired', timestamp: at(-1000) }),
    ]);
    expect(r).toMatchObject({ status: 202, body: { accepted: 1, ids: ['x-before'], outside_validity_ids: ['x-at', 'x-after'] } });
    expect((await values(TOPICS.plays, 1)).map((x) => x.id)).toEqual(['x-before']);
  });

  test('play logs carry the UTC end, status, the clock offset and the template zone; without them a play is completed', async () => {
    const d = await createDevice(f, { name: 'Web' });
    const r = await post(d.registrationKey, 'playlogs', [
      play({ id: 'w-1', timestamp: at(-20_000), end_timestamp: '2026-06-01T13:59:50+02:00', status: 'completed', clock_offset_ms: -1234.6, zone_id: 'm-left' }),
      play({ id: 'w-2', timestamp: at(-5000), end_timestamp: at(-5000), duration: 0, status: 'SKIPPED', zone_id: 'm-right' }),
      play({ id: 'w-3', status: 'failed', zone_id: null }),
      play({ id: 'w-4' }),
    ]);
    expect(r).toMatchObject({ status: 202, body: { accepted: 4 } });
    const rows = await values(TOPICS.plays, 4);
    expect(rows[0]).toMatchObject({
      id: 'w-1',
      timestamp: at(-20_000),
      end_timestamp: at(-10_000),
      status: 'completed',
      clock_offset_ms: -1235,
      zone_id: 'm-left',
    });
    expect(rows[1]).toMatchObject({ id: 'w-2', status: 'skipped', duration: 0, end_timestamp: at(-5000), zone_id: 'm-right', clock_offset_ms: null });
    expect(rows[2]).toMatchObject({ id: 'w-3', status: 'failed', zone_id: '', end_timestamp: null });
    expect(rows[3]).toMatchObject({ id: 'w-4', status: 'completed', zone_id: '', end_timestamp: null, clock_offset_ms: null });
  });

  test('events: player timestamps and position, else the clock and the device location', async () => {
    const d = await createDevice(f, { name: 'Kiosk', location: { latitude: 48.1, longitude: 11.5 } });
    const r = await post(d.registrationKey, 'events', [
      { id: 'e-1', event_name: 'tap', session_id: 's1', properties: { button: 'buy' }, timestamp: at(-5000), latitude: 1, longitude: 2 },
      { event_name: 'idle' },
    ]);
    expect(r).toMatchObject({ status: 202, body: { accepted: 2 } });
    const rows = await values(TOPICS.events, 2);
    expect(rows[0]).toMatchObject({
      id: 'e-1',
      device_id: d.id,
      session_id: 's1',
      properties: '{"button":"buy"}',
      timestamp: at(-5000),
      latitude: 1,
      longitude: 2,
    });
    expect(rows[1]).toMatchObject({ event_name: 'idle', session_id: '', properties: '{}', timestamp: at(0), latitude: 48.1, longitude: 11.5 });
  });

  test('impressions: enums normalised, missing values stored empty', async () => {
    const d = await createDevice(f, { name: 'Sensor' });
    const r = await post(d.registrationKey, 'impressions', [impression(), impression({ sensor: 'BLE', gender: undefined, age_range: null, visitor_id: null })]);
    expect(r.status).toBe(202);
    const rows = await values(TOPICS.impressions, 2);
    expect(rows[0]).toMatchObject({
      device_id: d.id,
      sensor: 'face',
      gender: 'FEMALE',
      age_range: 'AGE25TO34',
      dwell_time: 4.5,
      visitor_id: 'v1',
      file_id: '',
    });
    expect(rows[1]).toMatchObject({ sensor: 'ble', gender: 'UNKNOWN', age_range: '', visitor_id: '' });
    // Without client ids, the digest makes a retry land on the same ids.
    expect((await post(d.registrationKey, 'impressions', [impression()])).body.ids).toEqual([r.body.ids[0]]);
    await values(TOPICS.impressions, 1);
  });

  test("records land in the key holder's account: the same client id from another account is another record", async () => {
    const a = await createDevice(f, { name: 'A' });
    const b = await createDevice(f, { name: 'B' }, principal('acc-b'));
    await post(a.registrationKey, 'playlogs', [play({ id: 'same' })]);
    await post(b.registrationKey, 'playlogs', [play({ id: 'same', file_id: 'file-b' })]);
    const rows = await values(TOPICS.plays, 2);
    expect(rows.map((r) => [r.account_id, r.device_id, r.file_name])).toEqual([
      ['acc-a', a.id, 'Lobby loop.mp4'],
      ['acc-b', b.id, 'Other account.png'],
    ]);
  });
});

describe('durability and refusals', () => {
  test('202 only once the stream holds the batch; 503 with Retry-After when it cannot', async () => {
    const d = await createDevice(f, { name: 'Held' });
    let open!: () => void;
    control.gate = new Promise<void>((r) => (open = r));
    let answered = false;
    const pending = post(d.registrationKey, 'playlogs', [play({ id: 'held-1' })]).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).toBe(false);
    open();
    control.gate = null;
    expect((await pending).status).toBe(202);
    await values(TOPICS.plays, 1);

    control.failing = true;
    try {
      const r = await post(d.registrationKey, 'events', [{ id: 'refused-1', event_name: 'tap' }]);
      expect(r).toMatchObject({ status: 503, body: { error: { code: 'UNAVAILABLE' } } });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      control.failing = false;
    }
    // Nothing was promised and nothing arrived; the player's retry is held.
    expect((await post(d.registrationKey, 'events', [{ id: 'refused-1', event_name: 'tap' }])).status).toBe(202);
    expect((await values(TOPICS.events, 1)).map((r) => r.id)).toEqual(['refused-1']);
  });

  test('concurrent batches share a publish and are all held', async () => {
    const d = await createDevice(f, { name: 'Busy' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(d.registrationKey, 'playlogs', [play({ id: `c-${i}-a` }), play({ id: `c-${i}-b` })])),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    expect(new Set((await values(TOPICS.plays, 40)).map((r) => r.id)).size).toBe(40);
  });

  test('unknown keys are 401 and count against the address like the ping: then 429 even with a right key', async () => {
    const d = await createDevice(f, { name: 'Victim' });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await post(`unknown-key-${i}-0123456789`, 'playlogs', [play()])).status);
    // The budget is 5 failed keys per address (servePlayer's failurePoints).
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const r = await post(d.registrationKey, 'impressions', [impression()]);
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('per-screen telemetry limits (issue 34, M4)', () => {
  let limited: PlayerHttp;
  beforeAll(async () => {
    // A burst of one full batch, refilled at 1 record/s: the window is 1,000 s, past this test.
    limited = await servePlayer(f.sg.runtime, {
      telemetry: { PLAYER_PLAYLOGS_PER_SECOND: '1', PLAYER_PLAYLOGS_BURST: String(MAX_PLAYER_BATCH), PLAYER_PINGS_PER_SECOND: '1', PLAYER_PINGS_BURST: '3' },
    });
  });
  afterAll(() => limited.close());
  const postTo = async (key: string, kind: string, body: unknown) => {
    const res = await fetch(`${limited.url}/player/${key}/${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json, retryAfter: Number(res.headers.get('retry-after')) };
  };

  test("records beyond a screen's burst are 429 with Retry-After naming the limit; other screens and kinds go on", async () => {
    const a = await createDevice(f, { name: 'Chatty' });
    const b = await createDevice(f, { name: 'Quiet' });
    const full = Array.from({ length: MAX_PLAYER_BATCH }, (_, i) => play({ id: `burst-${i}` }));
    expect((await postTo(a.registrationKey, 'playlogs', full)).status).toBe(202);
    const over = await postTo(a.registrationKey, 'playlogs', [play({ id: 'one-more' })]);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMITED');
    expect(over.body.error.message).toMatch(/more play logs than its limit \(1 per second, 1000 at once\)/);
    expect(over.retryAfter).toBeGreaterThan(900);
    expect(over.retryAfter).toBeLessThanOrEqual(1000);
    // Another screen has its own budget; the same screen's impressions are another kind.
    expect((await postTo(b.registrationKey, 'playlogs', [play({ id: 'quiet-1' })])).status).toBe(202);
    expect((await postTo(a.registrationKey, 'impressions', [impression()])).status).toBe(202);
    await values(TOPICS.plays, MAX_PLAYER_BATCH + 1);
    await values(TOPICS.impressions, 1);
  });

  test('a batch over MAX_PLAYER_BATCH is 413 before it is charged: not 429 (retried forever), and no budget spent', async () => {
    const d = await createDevice(f, { name: 'Oversized' });
    const big = Array.from({ length: MAX_PLAYER_BATCH + 1 }, (_, i) => play({ id: `big-${i}` }));
    expect(await postTo(d.registrationKey, 'playlogs', big)).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', field: 'body' } } });
    // The whole burst is still there.
    const full = Array.from({ length: MAX_PLAYER_BATCH }, (_, i) => play({ id: `after-big-${i}` }));
    expect((await postTo(d.registrationKey, 'playlogs', full)).status).toBe(202);
  });

  test('pings count per screen too', async () => {
    const d = await createDevice(f, { name: 'Pinger' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await limited.ping(d.registrationKey, {})).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
