/**
 * nowPlaying's engine against a brute-force evaluator: a separate, minute-by-minute simulation of a
 * person watching the device's clock. A window of day D opens at the first minute the clock shows
 * D's start time or later and closes at the first minute it shows the end time or later (the DST
 * rule of zone-clock.ts, stated as behaviour, not computed the same way).
 */
import fc from 'fast-check';
import { outlook, resolve, winnerAt, type Plan } from '../../src/domain/resolution.js';

const MINUTE = 60_000;
const BACK = 50 * 60; // minutes scanned before the instant
const AHEAD = 26 * 60; // minutes scanned after it (nextChange within this is compared exactly)

const clocks = new Map<string, Intl.DateTimeFormat>();
/** Minutes since 1970-01-01 00:00 of the wall clock in `zone` at instant `t`. */
function clockMinutes(zone: string, t: number): number {
  let f = clocks.get(zone);
  if (!f)
    clocks.set(
      zone,
      (f = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
      })),
    );
  const p = Object.fromEntries(f.formatToParts(t).map((x) => [x.type, x.value]));
  return Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!) / MINUTE;
}

function bruteForce(plans: Plan[], zone: string, t: number): { winner: string | null; nextChange: number | null } {
  const first = t - BACK * MINUTE;
  const walls: number[] = [];
  for (let i = 0; i <= BACK + AHEAD; i++) walls.push(clockMinutes(zone, first + i * MINUTE));
  const firstIndexAtOrAfter = (wall: number) => {
    const i = walls.findIndex((w) => w >= wall);
    return i < 0 ? Infinity : i;
  };
  const today = Math.floor(walls[BACK]! / 1440);
  // Each plan's occurrences as [open, close) minute indexes of the scan.
  const occurrences = plans.map((p) => {
    const out: Array<[number, number]> = [];
    for (let day = today - 1; day <= today + 2; day++) {
      const weekday = (((day + 3) % 7) + 7) % 7;
      if (!p.weekdays[weekday] || (p.startDay !== null && day < p.startDay) || (p.endDay !== null && day > p.endDay)) continue;
      const startMin = day * 1440 + p.startSecond / 60;
      const endMin = (p.endSecond > p.startSecond ? day : day + 1) * 1440 + p.endSecond / 60;
      out.push([firstIndexAtOrAfter(startMin), firstIndexAtOrAfter(endMin)]);
    }
    return out;
  });
  const winnerAt = (i: number): string | null => {
    let best: Plan | null = null;
    plans.forEach((p, k) => {
      if (!p.hasContent || !occurrences[k]!.some(([o, c]) => o <= i && i < c)) return;
      if (
        !best ||
        p.priority > best.priority ||
        (p.priority === best.priority && (p.modifiedAt > best.modifiedAt || (p.modifiedAt === best.modifiedAt && p.id < best.id)))
      )
        best = p;
    });
    return best === null ? null : (best as Plan).id;
  };
  const winner = winnerAt(BACK);
  for (let i = BACK + 1; i <= BACK + AHEAD; i++) if (winnerAt(i) !== winner) return { winner, nextChange: first + i * MINUTE };
  return { winner, nextChange: null };
}

// DST transitions of 2026 (and a zone without DST), the instants are drawn around them.
const ANCHORS = [
  ['Europe/Amsterdam', '2026-03-29T01:00:00Z'],
  ['Europe/Amsterdam', '2026-10-25T01:00:00Z'],
  ['America/New_York', '2026-03-08T07:00:00Z'],
  ['America/New_York', '2026-11-01T06:00:00Z'],
  ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
  ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
  ['Asia/Kolkata', '2026-06-01T00:00:00Z'],
  ['UTC', '2026-06-01T00:00:00Z'],
] as const;

const timeOfDay = fc.oneof(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 60, max: 200 })); // minutes, often around 01:00-03:20
const planArb = (id: string) =>
  fc
    .record({
      priority: fc.integer({ min: 1, max: 5 }),
      modifiedAt: fc.integer({ min: 0, max: 2 }),
      from: fc.option(fc.integer({ min: -4, max: 3 }), { nil: null }), // days from the instant's day
      length: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
      start: timeOfDay,
      end: fc.oneof(timeOfDay, fc.constant(1440)),
      weekdays: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
      hasContent: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
    })
    .filter((r) => r.start !== r.end)
    .map((r): Plan => ({
      id,
      priority: r.priority,
      modifiedAt: r.modifiedAt,
      startDay: r.from,
      endDay: r.from === null || r.length === null ? null : r.from + r.length,
      startSecond: r.start * 60,
      endSecond: r.end * 60,
      weekdays: r.weekdays,
      hasContent: r.hasContent,
    }));

test('nowPlaying equals a minute-by-minute evaluation over random schedules and instants', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...ANCHORS),
      fc.integer({ min: -3 * 1440, max: 3 * 1440 }),
      fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => planArb(`s${i}`)))),
      ([zone, anchor], offsetMinutes, plans) => {
        const t = Date.parse(anchor) + offsetMinutes * MINUTE;
        // Date ranges relative to the instant's day, so expired and future schedules are common.
        const today = Math.floor(t / 86_400_000);
        const shifted = plans.map((p) =>
          p.startDay === null ? p : { ...p, startDay: today + p.startDay, endDay: p.endDay === null ? null : today + p.endDay },
        );
        const expected = bruteForce(shifted, zone, t);
        const actual = resolve(shifted, zone, t);
        expect(actual.winner?.id ?? null).toBe(expected.winner);
        if (expected.nextChange !== null) expect(actual.nextChange).toBe(expected.nextChange);
        else expect(actual.nextChange === null || actual.nextChange > t + AHEAD * MINUTE).toBe(true);
      },
    ),
    { numRuns: 150 },
  );
});

test('the memoised outlook (what the manifest reads) equals a fresh resolution at every later instant', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...ANCHORS),
      fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 1, maxLength: 12 }),
      fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => planArb(`m${i}`)))),
      ([zone, anchor], steps, plans) => {
        let t = Date.parse(anchor) - 6 * 3_600_000;
        const today = Math.floor(t / 86_400_000);
        const shifted = plans.map((p) =>
          p.startDay === null ? p : { ...p, startDay: today + p.startDay, endDay: p.endDay === null ? null : today + p.endDay },
        );
        // Instants moving forward (as a device's pings do), often inside one memoised span.
        for (const minutes of steps) {
          t += minutes * MINUTE;
          const fresh = resolve(shifted, zone, t);
          const got = outlook(shifted, zone, t);
          expect(got.winner?.id ?? null).toBe(fresh.winner?.id ?? null);
          expect(got.nextChange).toBe(fresh.nextChange);
          expect(got.next?.id ?? null).toBe(fresh.nextChange === null ? null : (winnerAt(shifted, zone, fresh.nextChange)?.id ?? null));
        }
        // A changed plan is a different key: the answer follows it at once.
        const edited = shifted.map((p, i) => (i === 0 ? { ...p, hasContent: !p.hasContent } : p));
        expect(outlook(edited, zone, t).winner?.id ?? null).toBe(resolve(edited, zone, t).winner?.id ?? null);
      },
    ),
    { numRuns: 150 },
  );
});

test('a "no change" answer is not reused once a change comes into the lookahead (New York, the day DST ends)', () => {
  // Seen from 2026-11-01 00:00Z nothing changes within the lookahead; from 07:00Z the schedule's
  // first Sunday play (2026-11-09 06:00Z) is in view. The memo must not answer 07:00Z from 00:00Z.
  const today = Math.floor(Date.parse('2026-11-01T00:00:00Z') / 86_400_000);
  const plans: Plan[] = [
    {
      id: 'dst-m0',
      priority: 1,
      modifiedAt: 0,
      startDay: null,
      endDay: null,
      startSecond: 0,
      endSecond: 60,
      weekdays: Array(7).fill(false),
      hasContent: false,
    },
    {
      id: 'dst-m1',
      priority: 1,
      modifiedAt: 0,
      startDay: today + 2,
      endDay: null,
      startSecond: 3600,
      endSecond: 86400,
      weekdays: [true, false, false, false, false, false, false],
      hasContent: true,
    },
  ];
  const zone = 'America/New_York';
  expect(outlook(plans, zone, Date.parse('2026-11-01T00:00:00Z')).nextChange).toBeNull();
  const later = Date.parse('2026-11-01T07:00:00Z');
  expect(resolve(plans, zone, later).nextChange).toBe(Date.parse('2026-11-09T06:00:00Z'));
  expect(outlook(plans, zone, later).nextChange).toBe(Date.parse('2026-11-09T06:00:00Z'));
});
