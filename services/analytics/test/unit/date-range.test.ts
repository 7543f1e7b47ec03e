/**
 * parseDateRange with a timeZone: the dates a person writes are read on that zone's clock (a date
 * is its local day, a date-time without an offset its local wall time), DST days and a skipped
 * midnight included; an explicit offset or Z is exact; without a zone nothing changes (UTC).
 * Known answers, then a property: a date-only day in a zone is exactly one DAY bucket there.
 */
import fc from 'fast-check';
import { bucketsOf } from '../../src/domain/buckets.js';
import { parseDateRange } from '../../src/domain/date-range.js';

const iso = (r: { from: Date; to: Date }) => [r.from.toISOString(), r.to.toISOString()];
const hours = (r: { from: Date; to: Date }) => (r.to.getTime() - r.from.getTime()) / 3_600_000;

test('without a zone (or in UTC) dates are UTC, as before', () => {
  expect(iso(parseDateRange('2026-11-24', '2026-11-24'))).toEqual(['2026-11-24T00:00:00.000Z', '2026-11-25T00:00:00.000Z']);
  expect(iso(parseDateRange('2026-11-24', '2026-11-24', 'UTC'))).toEqual(['2026-11-24T00:00:00.000Z', '2026-11-25T00:00:00.000Z']);
  expect(iso(parseDateRange('2026-11-24T10:00', '2026-11-24T12:00:00'))).toEqual(['2026-11-24T10:00:00.000Z', '2026-11-24T12:00:01.000Z']);
});

test('endDate is included at the precision written (issue 35): a second, a minute, a tenth, a millisecond', () => {
  expect(iso(parseDateRange('2026-11-24T01:18:47Z', '2026-11-24T01:18:47Z'))).toEqual(['2026-11-24T01:18:47.000Z', '2026-11-24T01:18:48.000Z']);
  expect(iso(parseDateRange('2026-11-24T01:18Z', '2026-11-24T01:18Z'))).toEqual(['2026-11-24T01:18:00.000Z', '2026-11-24T01:19:00.000Z']);
  expect(iso(parseDateRange('2026-11-24T01:18:47.5Z', '2026-11-24T01:18:47.5Z'))).toEqual(['2026-11-24T01:18:47.500Z', '2026-11-24T01:18:47.600Z']);
  expect(iso(parseDateRange('2026-11-24T01:18:47.123456Z', '2026-11-24T01:18:47.123456Z'))).toEqual(['2026-11-24T01:18:47.123Z', '2026-11-24T01:18:47.124Z']);
  expect(iso(parseDateRange('2026-11-24T01:18:47', '2026-11-24T01:18:47', 'Europe/Berlin'))).toEqual(['2026-11-24T00:18:47.000Z', '2026-11-24T00:18:48.000Z']);
});

test('a date-only day is that local day in the zone', () => {
  // The review's case: Nov 24 in New York is one day, 05:00Z to 05:00Z.
  expect(iso(parseDateRange('2026-11-24', '2026-11-24', 'America/New_York'))).toEqual(['2026-11-24T05:00:00.000Z', '2026-11-25T05:00:00.000Z']);
  expect(iso(parseDateRange('2026-11-24', '2026-11-30', 'Asia/Kolkata'))).toEqual(['2026-11-23T18:30:00.000Z', '2026-11-30T18:30:00.000Z']);
});

test('DST days are 23 and 25 hours long', () => {
  const cases: [string, string, string, string, number][] = [
    ['Europe/Amsterdam', '2026-03-29', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z', 23],
    ['Europe/Amsterdam', '2026-10-25', '2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z', 25],
    ['America/New_York', '2026-03-08', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z', 23],
    ['America/New_York', '2026-11-01', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z', 25],
  ];
  for (const [zone, day, from, to, h] of cases) {
    const r = parseDateRange(day, day, zone);
    expect([zone, day, ...iso(r), hours(r)]).toEqual([zone, day, from, to, h]);
    // One DAY period, the one the series shows.
    expect(bucketsOf(r, 'DAY', zone)).toEqual([{ start: r.from.getTime(), end: r.to.getTime() }]);
  }
});

test('a day whose midnight the zone skipped starts at its first instant (America/Sao_Paulo, 2018-11-04)', () => {
  // 00:00 -03 became 01:00 -02 (03:00Z): the day is 23 hours, 03:00Z to 02:00Z the next day.
  const r = parseDateRange('2018-11-04', '2018-11-04', 'America/Sao_Paulo');
  expect(iso(r)).toEqual(['2018-11-04T03:00:00.000Z', '2018-11-05T02:00:00.000Z']);
  // The day before ends where it starts.
  expect(parseDateRange('2018-11-03', '2018-11-03', 'America/Sao_Paulo').to).toEqual(r.from);
  expect(bucketsOf(r, 'DAY', 'America/Sao_Paulo')).toEqual([{ start: r.from.getTime(), end: r.to.getTime() }]);
});

test('a date-time without an offset is local wall time; an offset or Z is exact', () => {
  expect(iso(parseDateRange('2026-11-24T09:00', '2026-11-24T17:30:00.250', 'America/New_York'))).toEqual([
    '2026-11-24T14:00:00.000Z',
    '2026-11-24T22:30:00.251Z',
  ]);
  expect(iso(parseDateRange('2026-11-24T09:00:00Z', '2026-11-24T17:00:00+01:00', 'America/New_York'))).toEqual([
    '2026-11-24T09:00:00.000Z',
    '2026-11-24T16:00:01.000Z',
  ]);
  // A mixed pair: a zoned date start, an exact end.
  expect(iso(parseDateRange('2026-11-24', '2026-11-24T12:00:00Z', 'Europe/Amsterdam'))).toEqual(['2026-11-23T23:00:00.000Z', '2026-11-24T12:00:01.000Z']);
  // A wall time the clock skipped (02:30 on 2026-03-08 in New York) is the instant it jumped (07:00Z).
  expect(parseDateRange('2026-03-08T02:30', '2026-03-08', 'America/New_York').from.toISOString()).toBe('2026-03-08T07:00:00.000Z');
  // A repeated one (01:30 on 2026-11-01) is its first occurrence (EDT, 05:30Z).
  expect(parseDateRange('2026-11-01T01:30', '2026-11-01', 'America/New_York').from.toISOString()).toBe('2026-11-01T05:30:00.000Z');
});

test('refusals still name the field', () => {
  expect(() => parseDateRange('2026-11-25', '2026-11-24', 'America/New_York')).toThrow(expect.objectContaining({ details: { field: 'endDate' } }));
  // The same local minute at both ends is that minute, not a refusal.
  expect(hours(parseDateRange('2026-11-24T09:00', '2026-11-24T09:00', 'Asia/Tokyo'))).toBeCloseTo(1 / 60, 5);
});

test('property: dates a..b in a zone are exactly the DAY periods of those local days', () => {
  const zones = ['UTC', 'Europe/Amsterdam', 'America/New_York', 'America/Sao_Paulo', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham'];
  const day = fc.integer({ min: Date.UTC(2016, 0, 1) / 86_400_000, max: Date.UTC(2030, 0, 1) / 86_400_000 });
  fc.assert(
    fc.property(day, fc.integer({ min: 0, max: 40 }), fc.constantFrom(...zones), (d, len, zone) => {
      const a = new Date(d * 86_400_000).toISOString().slice(0, 10);
      const b = new Date((d + len) * 86_400_000).toISOString().slice(0, 10);
      const r = parseDateRange(a, b, zone);
      const buckets = bucketsOf(r, 'DAY', zone);
      expect(buckets).toHaveLength(len + 1);
      expect(buckets[0]!.start).toBe(r.from.getTime());
      expect(buckets.at(-1)!.end).toBe(r.to.getTime());
    }),
    { numRuns: 400 },
  );
});
