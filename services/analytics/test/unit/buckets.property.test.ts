/**
 * The bucketing engine against statements of behaviour: a bucket holds its instants, buckets tile
 * a range without gaps or overlaps, and each period starts where a person reading the zone's clock
 * says it starts (local midnight, Monday, the 1st), DST days included.
 */
import fc from 'fast-check';
import { bucketStart, bucketsOf, INTERVALS, nextBucketStart, wallClock, type Interval } from '../../src/domain/buckets.js';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/Sao_Paulo'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// 2018..2030, and instants drawn within two days of the 2026 DST changes.
const anyInstant = fc.integer({ min: Date.UTC(2018, 0, 1), max: Date.UTC(2030, 0, 1) });
const nearDst = fc
  .constantFrom(
    Date.UTC(2026, 2, 8, 7),
    Date.UTC(2026, 2, 29, 1),
    Date.UTC(2026, 3, 4, 15),
    Date.UTC(2026, 9, 25, 1),
    Date.UTC(2026, 10, 1, 6),
    Date.UTC(2026, 9, 3, 15),
  )
  .chain((a) => fc.integer({ min: a - 2 * DAY, max: a + 2 * DAY }));
const instant = fc.oneof(anyInstant, nearDst);
const zone = fc.constantFrom(...ZONES);
const interval = fc.constantFrom<Interval>(...INTERVALS);

const wallOf = (t: number, z: string) => new Date(wallClock(t, z));

test('a bucket holds its instants and starts a bucket of its own', () => {
  fc.assert(
    fc.property(instant, zone, interval, (t, z, i) => {
      const s = bucketStart(t, i, z);
      const e = nextBucketStart(s, i, z);
      expect(s).toBeLessThanOrEqual(t);
      expect(e).toBeGreaterThan(t);
      expect(bucketStart(s, i, z)).toBe(s);
      expect(bucketStart(e - 1, i, z)).toBe(s);
      expect(bucketStart(e, i, z)).toBe(e);
    }),
    { numRuns: 600 },
  );
});

test('the buckets of a range tile it, in order, without gaps', () => {
  fc.assert(
    fc.property(instant, fc.integer({ min: 1, max: 40 * DAY }), zone, fc.constantFrom<Interval>('HOUR', 'DAY', 'WEEK', 'MONTH'), (from, len, z, i) => {
      const bs = bucketsOf({ from: new Date(from), to: new Date(from + len) }, i, z);
      expect(bs[0]!.start).toBeLessThanOrEqual(from);
      expect(bs.at(-1)!.end).toBeGreaterThanOrEqual(from + len);
      expect(bs.at(-1)!.start).toBeLessThan(from + len);
      for (let k = 1; k < bs.length; k++) expect(bs[k]!.start).toBe(bs[k - 1]!.end);
    }),
    { numRuns: 200 },
  );
});

test('a day whose midnight the zone skipped starts at its first instant (CI seed -1336479529)', () => {
  // America/Sao_Paulo, 2018-11-04: 00:00 -03 (03:00Z) became 01:00 -02.
  expect(new Date(bucketStart(1541300400000, 'DAY', 'America/Sao_Paulo')).toISOString()).toBe('2018-11-04T03:00:00.000Z');
});

test('calendar periods start where the local clock says: midnight, Monday, the 1st', () => {
  fc.assert(
    fc.property(instant, zone, fc.constantFrom<Interval>('DAY', 'WEEK', 'MONTH'), (t, z, i) => {
      const s = bucketStart(t, i, z);
      const w = wallOf(s, z);
      // Every period starts at 00:00 on the clock, except on a day whose midnight the zone skipped
      // (Sao Paulo's DST began at 00:00 until 2018): there at the day's first instant, the second
      // after 23:59:59 of the day before.
      if (w.getUTCHours() !== 0 || w.getUTCMinutes() !== 0) {
        const before = wallOf(s - 1000, z);
        expect([before.getUTCHours(), before.getUTCMinutes(), before.getUTCSeconds()]).toEqual([23, 59, 59]);
      }
      expect([w.getUTCMinutes(), w.getUTCSeconds()]).toEqual([0, 0]);
      // The instant before the start shows the previous day.
      expect(wallOf(s - 1000, z).getUTCDate()).not.toBe(w.getUTCDate());
      // t is on the same local day / week / month.
      const wt = wallOf(t, z);
      if (i === 'DAY') expect(wt.toISOString().slice(0, 10)).toBe(w.toISOString().slice(0, 10));
      if (i === 'WEEK') {
        expect(w.getUTCDay()).toBe(1);
        expect(wallClock(t, z) - wallClock(s, z)).toBeLessThan(7 * DAY);
      }
      if (i === 'MONTH') expect([w.getUTCDate(), w.getUTCMonth()]).toEqual([1, wt.getUTCMonth()]);
    }),
    { numRuns: 600 },
  );
});

test('DST days are 23 and 25 hours long; hours stay hours', () => {
  const day = (iso: string, z: string) => {
    const s = bucketStart(Date.parse(iso), 'DAY', z);
    return (nextBucketStart(s, 'DAY', z) - s) / HOUR;
  };
  expect(day('2026-03-29T12:00:00Z', 'Europe/Berlin')).toBe(23);
  expect(day('2026-10-25T12:00:00Z', 'Europe/Berlin')).toBe(25);
  expect(day('2026-03-08T12:00:00Z', 'America/New_York')).toBe(23);
  expect(day('2026-04-05T12:00:00Z', 'Australia/Lord_Howe')).toBe(24.5);
  expect(day('2026-03-29T12:00:00Z', 'UTC')).toBe(24);
  // The fall-back day in Berlin has 25 hour buckets: 02:00 CEST and 02:00 CET are two.
  const bs = bucketsOf({ from: new Date('2026-10-24T22:00:00Z'), to: new Date('2026-10-25T23:00:00Z') }, 'HOUR', 'Europe/Berlin');
  expect(bs).toHaveLength(25);
  expect(bs.every((b) => b.end - b.start === HOUR)).toBe(true);
  // Kolkata's hours start at :30 UTC.
  expect(new Date(bucketStart(Date.parse('2026-01-01T10:10:00Z'), 'HOUR', 'Asia/Kolkata')).toISOString()).toBe('2026-01-01T09:30:00.000Z');
});

test('a series of more than 10000 periods is refused, naming interval', () => {
  expect(() => bucketsOf({ from: new Date('2026-01-01'), to: new Date('2026-03-01') }, 'MINUTE', 'UTC')).toThrow(/interval/);
  expect(bucketsOf({ from: new Date('2026-01-01'), to: new Date('2026-01-07') }, 'MINUTE', 'UTC')).toHaveLength(6 * 1440);
});

test('a half-hour DST change inside a clock hour starts an hour bucket of its own (Australia/Lord_Howe)', () => {
  const z = 'Australia/Lord_Howe';
  // 2026-04-05 02:00 (+11) becomes 01:30 (+10:30) at 15:00Z: the clock's 01:00 hour runs 14:00Z-15:00Z,
  // then 01:30-02:00 again (15:00Z-15:30Z), then 02:00.
  const at = (iso: string) => Date.parse(iso);
  expect(bucketStart(at('2026-04-04T14:30:00Z'), 'HOUR', z)).toBe(at('2026-04-04T14:00:00Z'));
  expect(nextBucketStart(at('2026-04-04T14:00:00Z'), 'HOUR', z)).toBe(at('2026-04-04T15:00:00Z'));
  expect(bucketStart(at('2026-04-04T15:10:00Z'), 'HOUR', z)).toBe(at('2026-04-04T15:00:00Z'));
  expect(nextBucketStart(at('2026-04-04T15:00:00Z'), 'HOUR', z)).toBe(at('2026-04-04T15:30:00Z'));
  // 2026-10-04 02:00 (+10:30) becomes 02:30 (+11) at 15:30Z.
  expect(bucketStart(at('2026-10-03T15:10:00Z'), 'HOUR', z)).toBe(at('2026-10-03T14:30:00Z'));
  expect(nextBucketStart(at('2026-10-03T14:30:00Z'), 'HOUR', z)).toBe(at('2026-10-03T15:30:00Z'));
  expect(bucketStart(at('2026-10-03T15:45:00Z'), 'HOUR', z)).toBe(at('2026-10-03T15:30:00Z'));
  // Whole-hour zones are unchanged: Berlin's 02:00-03:00 (CET) after the October change.
  expect(bucketStart(at('2026-10-25T01:30:00Z'), 'HOUR', 'Europe/Berlin')).toBe(at('2026-10-25T01:00:00Z'));
});

test('the property with the seed CI found the Lord Howe case with', () => {
  fc.assert(
    fc.property(instant, zone, interval, (t, z, i) => {
      const s = bucketStart(t, i, z);
      const e = nextBucketStart(s, i, z);
      expect(bucketStart(e, i, z)).toBe(e);
    }),
    { numRuns: 600, seed: 793611526 },
  );
});
