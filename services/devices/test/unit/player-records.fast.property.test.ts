/**
 * The hand-written record check (player-records.fast.ts) against the zod schemas it stands in for:
 * on any input it answers either exactly zod's parsed value (same keys in the same order, same
 * trimming and case folding) or "not sure" (then zod decides and names the field). So the hot
 * path accepts and refuses exactly what the schemas did, and its output is the same.
 * Inputs mix valid values, near misses (bounds, whitespace, case, wrong types, bad dates, extra
 * and prototype keys) and missing fields.
 */
import fc from 'fast-check';
import { PLAYER_RECORD_SCHEMAS, isCanonicalIso, isoMillis, parseBatch } from '../../src/domain/player-records.js';
import { fastRecord } from '../../src/domain/player-records.fast.js';

type Kind = keyof typeof PLAYER_RECORD_SCHEMAS;

const strings = fc.oneof(
  fc.constantFrom('', ' ', 'x', ' x ', 'file-1', 'a'.repeat(50), 'a'.repeat(51), 'b'.repeat(200), ' ' + 'b'.repeat(200) + ' ', 'c'.repeat(201), '\tv\n'),
  fc.string({ maxLength: 30 }),
);
const numbers = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 10.5, 86_400, 86_401, 90, -90, 90.0001, 180, -180, -180.5, Number.MAX_VALUE),
  fc.double({ noNaN: false }),
);
const stamps = fc.oneof(
  fc.constantFrom(
    '2026-06-01T12:00:00Z',
    '2026-06-01T12:00:00.123Z',
    '2026-06-01T12:00:00.123456789+02:00',
    '2026-06-01T12:00:00+0200',
    '2026-02-29T00:00:00Z',
    '2024-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-06-01 12:00:00Z',
    '2026-06-01T24:00:00Z',
    '2026-06-01',
    '2026-06-01T12:00:00.' + '1'.repeat(30) + 'Z',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);
const ids = fc.oneof(fc.constantFrom('a', 'id-1.2:3_4', 'has space', 'é', 'x'.repeat(100), 'x'.repeat(101), ''), fc.string({ maxLength: 12 }));
const enums = fc.constantFrom(
  'completed',
  'skipped ',
  'done',
  'motion',
  'FACE',
  'Ble',
  'wifi ',
  'male',
  'FEMALE',
  'Unknown',
  'x',
  'age18to24',
  'AGEOVER74',
  'UNDER18 ',
  '',
);
const objects = fc.oneof(
  fc.constant({}),
  fc.dictionary(fc.oneof(fc.string({ maxLength: 5 }), fc.constant('k'.repeat(201))), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constant([1, 2]),
  fc.constant(JSON.parse('{"__proto__": {"x": 1}}') as unknown),
);
/** Any value a JSON body could carry in a field, plus a few typed near misses. */
const anyValue = fc.oneof(
  { weight: 3, arbitrary: strings },
  { weight: 3, arbitrary: numbers },
  { weight: 3, arbitrary: stamps },
  { weight: 2, arbitrary: ids },
  { weight: 2, arbitrary: enums },
  { weight: 1, arbitrary: objects },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, undefined) },
);

const good = {
  id: fc.stringMatching(/^[A-Za-z0-9_.:-]{1,100}$/),
  stamp: fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
  text: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom(' padded ', 'b'.repeat(200))),
  seconds: fc.oneof(fc.integer({ min: 0, max: 86_400 }), fc.double({ min: 0, max: 86_400, noNaN: true })),
  lat: fc.double({ min: -90, max: 90, noNaN: true }),
  lon: fc.double({ min: -180, max: 180, noNaN: true }),
  sensor: fc.constantFrom('motion', 'face', 'BLE', 'Wifi'),
  gender: fc.constantFrom('MALE', 'female', 'Unknown'),
  age: fc.constantFrom('UNDER18', 'age25to34', 'AgeOver74', null),
  status: fc.constantFrom('completed', 'SKIPPED', 'Failed'),
  offset: fc.oneof(fc.integer({ min: -86_400_000, max: 86_400_000 }), fc.constantFrom(-1.78e12, 0.5)),
  props: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
};
/** Per field: usually a right value, sometimes a near miss or anything. */
const field = (right: fc.Arbitrary<unknown>, near: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 80, arbitrary: right }, { weight: 1, arbitrary: near }, { weight: 1, arbitrary: anyValue });

const FIELDS: Record<Kind, Record<string, fc.Arbitrary<unknown>>> = {
  playlogs: {
    id: field(good.id, ids),
    timestamp: field(good.stamp, stamps),
    file_id: field(good.text, strings),
    duration: field(good.seconds, numbers),
    type: field(good.text, strings),
    playlist_id: field(fc.oneof(good.text, fc.constant(null)), strings),
    schedule_id: field(good.text, strings),
    end_timestamp: field(good.stamp, stamps),
    status: field(good.status, enums),
    clock_offset_ms: field(good.offset, numbers),
    zone_id: field(fc.oneof(good.text, fc.constant(null)), strings),
  },
  events: {
    id: field(good.id, ids),
    timestamp: field(good.stamp, stamps),
    session_id: field(fc.oneof(good.text, fc.constant(null)), strings),
    event_name: field(good.text, strings),
    properties: field(fc.oneof(good.props, fc.constant(null)), objects),
    latitude: field(good.lat, numbers),
    longitude: field(fc.oneof(good.lon, fc.constant(null)), numbers),
  },
  impressions: {
    id: field(good.id, ids),
    timestamp: field(good.stamp, stamps),
    sensor: field(good.sensor, enums),
    gender: field(good.gender, enums),
    age_range: field(good.age, enums),
    dwell_time: field(good.seconds, numbers),
    visitor_id: field(fc.oneof(good.text, fc.constant(null)), strings),
    file_id: field(good.text, strings),
    latitude: field(good.lat, numbers),
    longitude: field(good.lon, numbers),
  },
};

function records(kind: Kind): fc.Arbitrary<unknown> {
  // Each field present most of the time (required ones too: a missing one is a near miss).
  const entries = Object.entries(FIELDS[kind]).map(([k, a]) => [k, fc.option(a, { nil: undefined, freq: 12 })] as const);
  const record = fc.record(Object.fromEntries(entries));
  // Keys mostly in the schema's order (as players send them), sometimes in another (the fast check must not keep that order).
  const order = fc.option(fc.constantFrom('reversed', 'rotated'), { freq: 6 });
  const shuffled = fc.tuple(record, fc.option(fc.constantFrom('extra', '__proto__', 'constructor'), { freq: 12 }), order).map(([r, extra, reorder]) => {
    const entries = Object.entries(JSON.parse(JSON.stringify(r)) as Record<string, unknown>); // as a parsed body is: no undefined, own keys only
    if (reorder === 'reversed') entries.reverse();
    if (reorder === 'rotated') entries.push(...entries.splice(0, 1));
    const out = Object.fromEntries(entries);
    if (extra) Object.defineProperty(out, extra, { value: 1, enumerable: true, configurable: true, writable: true });
    return out;
  });
  return fc.oneof({ weight: 12, arbitrary: shuffled }, { weight: 1, arbitrary: anyValue }, { weight: 1, arbitrary: fc.constant([]) });
}

describe.each(Object.keys(PLAYER_RECORD_SCHEMAS) as Kind[])('%s: the fast check agrees with the zod schema', (kind) => {
  test('any input: fast answers zod’s exact value or defers to zod', () => {
    let fastAccepted = 0;
    let zodAccepted = 0;
    const deferred: unknown[] = [];
    fc.assert(
      fc.property(records(kind), (raw) => {
        const fast = fastRecord(kind, raw);
        const slow = PLAYER_RECORD_SCHEMAS[kind].safeParse(raw);
        if (slow.success) zodAccepted++;
        // Deferring is right for a `__proto__` key in properties (parseBatch refuses it before either check runs).
        const protoKey = Object.keys((raw as { properties?: object })?.properties ?? {}).includes('__proto__');
        if (fast === undefined && slow.success && !protoKey) deferred.push(raw);
        if (slow.success && protoKey) zodAccepted--;
        if (fast === undefined) return;
        fastAccepted++;
        expect(slow.success).toBe(true);
        expect(fast).toStrictEqual(slow.data);
        expect(Object.keys(fast)).toEqual(Object.keys(slow.data as object));
      }),
      { numRuns: 4000 },
    );
    // The fast path is really taken: for every valid record here (it defers only on invalid ones).
    expect(zodAccepted).toBeGreaterThan(100);
    expect(deferred).toEqual([]);
    expect(fastAccepted).toBe(zodAccepted);
  });

  test('what zod accepts in its usual form, the fast check accepts too', () => {
    const sample: Record<Kind, Record<string, unknown>> = {
      playlogs: {
        id: 'p-1',
        timestamp: '2026-06-01T12:00:00.000Z',
        file_id: 'f',
        duration: 10,
        type: 'image',
        playlist_id: null,
        schedule_id: 's',
        end_timestamp: '2026-06-01T12:00:10.000Z',
        status: 'Skipped',
        clock_offset_ms: -1250,
        zone_id: 'm-1',
      },
      events: { timestamp: '2026-06-01T12:00:00Z', session_id: 's', event_name: 'tap', properties: { a: 1, b: [2] }, latitude: 1, longitude: null },
      impressions: { timestamp: '2026-06-01T12:00:00Z', sensor: 'FACE', gender: 'female', age_range: 'age25to34', dwell_time: 3, visitor_id: 'v' },
    };
    expect(fastRecord(kind, sample[kind])).toStrictEqual(PLAYER_RECORD_SCHEMAS[kind].parse(sample[kind]));
  });
});

test('a batch: the same ids and errors as before (the fast path is not visible)', () => {
  const window = { now: Date.parse('2026-06-01T12:00:00Z'), maxAgeDays: 90 };
  const good = { timestamp: '2026-06-01T11:00:00Z', file_id: ' f ', duration: 1, type: 'image' };
  expect(parseBatch('playlogs', [good], window)).toEqual([{ timestamp: '2026-06-01T11:00:00Z', file_id: 'f', duration: 1, type: 'image' }]);
  expect(() => parseBatch('playlogs', [good, { ...good, duration: -1 }], window)).toThrow(expect.objectContaining({ details: { field: '[1].duration' } }));
  expect(() => parseBatch('playlogs', [{ ...good, extra: 1 }], window)).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT' }));
  expect(() => parseBatch('impressions', [{ timestamp: '2026-06-01T11:00:00Z', sensor: 'radar', dwell_time: 1 }], window)).toThrow(
    expect.objectContaining({ details: { field: '[0].sensor' } }),
  );
});

test('canonical stamps: their own millisecond form, and text order is time order (the window check compares text)', () => {
  fc.assert(
    fc.property(
      fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
      fc.date({ noInvalidDate: true }),
      (a, b) => {
        const [x, y] = [a.toISOString(), b.toISOString()];
        expect(isCanonicalIso(x)).toBe(true);
        expect(isoMillis(x)).toBe(new Date(Date.parse(x)).toISOString());
        if (isCanonicalIso(y)) expect(x < y).toBe(a.getTime() < b.getTime());
      },
    ),
    { numRuns: 2000 },
  );
  // Other valid forms are converted as before.
  expect(isoMillis('2026-06-01T12:00:00+02:00')).toBe('2026-06-01T10:00:00.000Z');
  expect(isoMillis('2026-06-01T12:00:00.123456Z')).toBe('2026-06-01T12:00:00.123Z');
  expect(isCanonicalIso('2026-06-01T12:00:00.12+0Z')).toBe(false);
});

test('the time window on canonical and other stamps alike', () => {
  const window = { now: Date.parse('2026-06-01T12:00:00Z'), maxAgeDays: 1 };
  const at = (timestamp: string) => [{ timestamp, file_id: 'f', duration: 1, type: 'image' }];
  for (const ok of ['2026-05-31T12:00:00.000Z', '2026-06-01T12:05:00.000Z', '2026-05-31T14:00:00+02:00', '2026-06-01T14:05:00+02:00'])
    expect(() => parseBatch('playlogs', at(ok), window)).not.toThrow();
  for (const old of ['2026-05-31T11:59:59.999Z', '2026-05-31T13:59:59.999+02:00'])
    expect(() => parseBatch('playlogs', at(old), window)).toThrow('older than 1 days');
  for (const late of ['2026-06-01T12:05:00.001Z', '2026-06-01T14:05:00.001+02:00'])
    expect(() => parseBatch('playlogs', at(late), window)).toThrow('5 minutes in the future');
});
