/** The planner picks a rollup only when its grain divides every boundary, and the coarsest one. */
import fc from 'fast-check';
import { bucketsOf, INTERVALS, type Interval } from '../../src/domain/buckets.js';
import { GRAIN_MS, GRAINS, planSource, planSplit, type Grain } from '../../src/domain/rollup-plan.js';

const ZONES = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/New_York', 'Australia/Lord_Howe'];
const MINUTE = 60_000;

test('a chosen grain divides every boundary; no coarser grain would', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: Date.UTC(2024, 0, 1) / MINUTE, max: Date.UTC(2027, 0, 1) / MINUTE }),
      fc.integer({ min: 1, max: 60 * 24 * 40 }),
      fc.constantFrom(0, 1, 1000, 59_999), // ms off the minute
      fc.constantFrom<Interval>(...INTERVALS.filter((i) => i !== 'MINUTE')),
      fc.constantFrom(...ZONES),
      (fromMin, lenMin, jitter, interval, zone) => {
        const range = { from: new Date(fromMin * MINUTE), to: new Date((fromMin + lenMin) * MINUTE + jitter) };
        const buckets = bucketsOf(range, interval, zone);
        const plan = planSource(range, buckets, GRAINS);
        const bounds = [
          range.from.getTime(),
          range.to.getTime(),
          ...buckets.map((b) => b.start).filter((s) => s > range.from.getTime() && s < range.to.getTime()),
        ];
        const fits = (ms: number) => bounds.every((t) => t % ms === 0);
        if (plan === 'RAW') expect(GRAINS.some((g) => fits(GRAIN_MS[g]))).toBe(false);
        else {
          expect(fits(GRAIN_MS[plan])).toBe(true);
          for (const g of GRAINS) if (GRAIN_MS[g] > GRAIN_MS[plan]) expect(fits(GRAIN_MS[g])).toBe(false);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('known plans', () => {
  const plan = (s: string, e: string, i: Interval, z: string, grains: readonly Grain[] = GRAINS) => {
    const range = { from: new Date(s), to: new Date(e) };
    return planSource(range, bucketsOf(range, i, z), grains);
  };
  expect(plan('2026-01-01T00:00:00Z', '2026-04-01T00:00:00Z', 'DAY', 'UTC')).toBe('DAY');
  expect(plan('2026-01-01T00:00:00Z', '2026-04-01T00:00:00Z', 'DAY', 'UTC', ['HOUR'])).toBe('HOUR');
  expect(plan('2025-12-31T23:00:00Z', '2026-03-31T22:00:00Z', 'DAY', 'Europe/Berlin')).toBe('HOUR');
  expect(plan('2025-12-31T18:30:00Z', '2026-01-31T18:30:00Z', 'DAY', 'Asia/Kolkata')).toBe('MINUTE');
  expect(plan('2026-01-01T00:00:00Z', '2026-01-01T11:59:59.001Z', 'HOUR', 'UTC')).toBe('RAW');
  expect(plan('2025-12-31T18:30:00Z', '2026-01-31T18:30:00Z', 'DAY', 'Asia/Kolkata', ['HOUR', 'DAY'])).toBe('RAW');
});

test('a split puts whole grain periods inside one answer period each, and the raw edges inside the first and last', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2027, 0, 1) }),
      fc.integer({ min: 1, max: 40 * 24 * 3_600_000 }),
      fc.constantFrom<Interval>(...INTERVALS.filter((i) => i !== 'MINUTE')), // a MINUTE series is at most about a week
      fc.constantFrom(...ZONES),
      (from, len, interval, zone) => {
        const range = { from: new Date(from), to: new Date(from + len) };
        const buckets = bucketsOf(range, interval, zone);
        if (planSource(range, buckets, GRAINS) !== 'RAW') return;
        const split = planSplit(range, buckets, GRAINS);
        if (!split) return;
        const ms = GRAIN_MS[split.grain];
        expect(split.from % ms).toBe(0);
        expect(split.to % ms).toBe(0);
        expect(split.from).toBeGreaterThanOrEqual(from);
        expect(split.to).toBeLessThanOrEqual(from + len);
        expect(split.from).toBeLessThan(split.to);
        // Every grain period of [split.from, split.to) lies inside one bucket.
        for (const b of buckets) {
          if (b.start > from) expect(b.start % ms).toBe(0);
        }
        // The raw edges lie inside the first and the last bucket.
        expect(split.from).toBeLessThanOrEqual(buckets[0]!.end);
        expect(split.to).toBeGreaterThanOrEqual(buckets.at(-1)!.start);
        // No coarser grain would do.
        for (const g of GRAINS) {
          if (GRAIN_MS[g] <= ms) continue;
          const gm = GRAIN_MS[g];
          const inner = buckets.every((b) => b.start <= from || b.start % gm === 0);
          expect(inner && Math.ceil(from / gm) * gm < Math.floor((from + len) / gm) * gm).toBe(false);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('known splits', () => {
  const split = (s: string, e: string, i: Interval, z: string, grains: readonly Grain[] = GRAINS) => {
    const range = { from: new Date(s), to: new Date(e) };
    const r = planSplit(range, bucketsOf(range, i, z), grains);
    return r && { grain: r.grain, from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() };
  };
  // Ninety days with an inclusive end at 23:59:59: days from the day rollup, the last day's end raw.
  expect(split('2026-01-01T00:00:00Z', '2026-04-01T00:00:00.000Z', 'DAY', 'UTC')).toEqual({
    grain: 'DAY',
    from: '2026-01-01T00:00:00.000Z',
    to: '2026-04-01T00:00:00.000Z',
  });
  expect(split('2026-01-01T00:00:00Z', '2026-03-31T23:59:59.999Z', 'DAY', 'UTC')).toEqual({
    grain: 'DAY',
    from: '2026-01-01T00:00:00.000Z',
    to: '2026-03-31T00:00:00.000Z',
  });
  // "The last 7 days" ending now, hourly: whole hours from the hour rollup.
  expect(split('2026-01-01T10:17:03.250Z', '2026-01-08T10:17:03.250Z', 'HOUR', 'UTC')).toEqual({
    grain: 'HOUR',
    from: '2026-01-01T11:00:00.000Z',
    to: '2026-01-08T10:00:00.000Z',
  });
  // Days in Asia/Kolkata start at :30 past a UTC hour: minutes only.
  expect(split('2025-12-31T18:30:00Z', '2026-01-31T18:29:59.999Z', 'DAY', 'Asia/Kolkata')?.grain).toBe('MINUTE');
  expect(split('2025-12-31T18:30:00Z', '2026-01-31T18:29:59.999Z', 'DAY', 'Asia/Kolkata', ['HOUR', 'DAY'])).toBeUndefined();
  // Less than one whole period of any grain inside: raw.
  expect(split('2026-01-01T10:00:00.500Z', '2026-01-01T10:00:59.000Z', 'MINUTE', 'UTC')).toBeUndefined();
});
