/** The planner picks a rollup only when its grain divides every boundary, and the coarsest one. */
import fc from 'fast-check';
import { bucketsOf, INTERVALS, type Interval } from '../../src/domain/buckets.js';
import { GRAIN_MS, GRAINS, planSource, type Grain } from '../../src/domain/rollup-plan.js';

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
