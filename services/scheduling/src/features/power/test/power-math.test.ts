/**
 * The power schedule math (domain/power.ts): weekly windows in the device's zone, over-midnight
 * windows, DST nights in Europe/Amsterdam, exceptions by date, the governing schedule of a device.
 */
import { governingSchedule, onIntervals, powerScheduleFromInput, powerStateAt, type PowerRules } from '../../../domain/power.js';

const at = (iso: string) => Date.parse(iso);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString().slice(0, 16));
const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const;
const office: PowerRules = { windows: [{ weekdays: [...WEEKDAYS], on: '07:00', off: '19:00' }], exceptions: [] };

test('weekday office hours in the device zone: on at 07:00 local, off at 19:00, off all weekend', () => {
  // Monday 2026-05-04, Amsterdam is UTC+2.
  expect(powerStateAt(office, 'Europe/Amsterdam', at('2026-05-04T04:59:00Z'))).toMatchObject({ on: false });
  expect(iso(powerStateAt(office, 'Europe/Amsterdam', at('2026-05-04T04:59:00Z')).until)).toBe('2026-05-04T05:00');
  expect(powerStateAt(office, 'Europe/Amsterdam', at('2026-05-04T05:00:00Z'))).toMatchObject({ on: true, since: at('2026-05-04T05:00:00Z') });
  expect(iso(powerStateAt(office, 'Europe/Amsterdam', at('2026-05-04T12:00:00Z')).until)).toBe('2026-05-04T17:00');
  // Friday evening: off until Monday 07:00 local.
  const fri = powerStateAt(office, 'Europe/Amsterdam', at('2026-05-08T17:00:00Z'));
  expect({ on: fri.on, until: iso(fri.until), since: iso(fri.since) }).toEqual({ on: false, until: '2026-05-11T05:00', since: '2026-05-08T17:00' });
  // The same rules in New York are other instants.
  expect(iso(powerStateAt(office, 'America/New_York', at('2026-05-04T10:00:00Z')).until)).toBe('2026-05-04T11:00');
});

test('a window past midnight (22:00-06:00) runs into the next day; an exception replaces the windows starting on its date', () => {
  const night: PowerRules = {
    windows: [{ weekdays: ['SATURDAY'], on: '22:00', off: '06:00' }],
    exceptions: [],
  };
  expect(onIntervals(night, 'UTC', at('2026-05-09T00:00:00Z'), at('2026-05-11T00:00:00Z')).map(([s, e]) => [iso(s), iso(e)])).toEqual([
    ['2026-05-09T22:00', '2026-05-10T06:00'],
  ]);
  expect(powerStateAt(night, 'UTC', at('2026-05-10T03:00:00Z'))).toMatchObject({ on: true, until: at('2026-05-10T06:00:00Z') });
  const holiday: PowerRules = {
    ...office,
    exceptions: [
      { date: '2026-05-05', windows: [] },
      { date: '2026-05-06', windows: [{ on: '10:00', off: '14:00' }] },
    ],
  };
  const list = onIntervals(holiday, 'UTC', at('2026-05-04T00:00:00Z'), at('2026-05-07T00:00:00Z')).map(([s, e]) => [iso(s), iso(e)]);
  expect(list).toEqual([
    ['2026-05-04T07:00', '2026-05-04T19:00'],
    ['2026-05-06T10:00', '2026-05-06T14:00'],
  ]);
  // Off all of the 5th: until 10:00 on the 6th.
  expect(iso(powerStateAt(holiday, 'UTC', at('2026-05-05T12:00:00Z')).until)).toBe('2026-05-06T10:00');
});

test('DST nights (Europe/Amsterdam): a night window is an hour shorter in spring and longer in autumn; an on in the gap comes on at the jump', () => {
  const night: PowerRules = { windows: [{ weekdays: ['SATURDAY'], on: '22:00', off: '06:00' }], exceptions: [] };
  const [spring] = onIntervals(night, 'Europe/Amsterdam', at('2026-03-28T00:00:00Z'), at('2026-03-30T00:00:00Z'));
  expect(spring![1] - spring![0]).toBe(7 * 3_600_000);
  const [autumn] = onIntervals(night, 'Europe/Amsterdam', at('2026-10-24T00:00:00Z'), at('2026-10-26T00:00:00Z'));
  expect(autumn![1] - autumn![0]).toBe(9 * 3_600_000);
  const gap: PowerRules = { windows: [{ weekdays: ['SUNDAY'], on: '02:30', off: '04:00' }], exceptions: [] };
  // 2026-03-29 02:00 -> 03:00 local (01:00Z): on at the jump, off at 04:00 local (02:00Z).
  expect(onIntervals(gap, 'Europe/Amsterdam', at('2026-03-29T00:00:00Z'), at('2026-03-30T00:00:00Z')).map(([s, e]) => [iso(s), iso(e)])).toEqual([
    ['2026-03-29T01:00', '2026-03-29T02:00'],
  ]);
});

test('input: every refusal names its field; a device governs over its group (and the groups above), a group over a tag', () => {
  const bad = (input: unknown) => {
    try {
      powerScheduleFromInput(input);
    } catch (e) {
      return (e as { details?: { field?: string } }).details?.field;
    }
    throw new Error('accepted');
  };
  const ok = { target: { tag: 'lobby' }, windows: [{ weekdays: ['MONDAY'], on: '07:00', off: '19:00' }] };
  expect(bad({ ...ok, windows: [{ weekdays: ['MONDAY'], on: '25:00', off: '19:00' }] })).toBe('windows[0].on');
  expect(bad({ ...ok, windows: [{ weekdays: ['FUNDAY'], on: '07:00', off: '19:00' }] })).toBe('windows[0].weekdays[0]');
  expect(bad({ ...ok, windows: [{ weekdays: ['MONDAY'], on: '07:00', off: '07:00' }] })).toBe('windows[0].off');
  expect(bad({ ...ok, exceptions: [{ date: '2026-02-30' }] })).toBe('exceptions[0].date');
  expect(bad({ ...ok, target: { tag: 'a', deviceId: 'd' } })).toBe('target');
  expect(powerScheduleFromInput(ok)).toMatchObject({ scope: 'TAG', target: 'lobby', exceptions: [] });

  const schedules = [
    { scope: 'TAG' as const, target: 'lobby' },
    { scope: 'GROUP' as const, target: 'top' },
    { scope: 'DEVICE' as const, target: 'd1' },
  ];
  const groups = new Map<string, string | null>([
    ['top', null],
    ['child', 'top'],
  ]);
  expect(governingSchedule(schedules, { id: 'd1', groupId: 'child', tags: ['lobby'] }, groups)?.scope).toBe('DEVICE');
  expect(governingSchedule(schedules, { id: 'd2', groupId: 'child', tags: ['lobby'] }, groups)?.scope).toBe('GROUP');
  expect(governingSchedule(schedules, { id: 'd3', groupId: null, tags: ['zz', 'lobby'] }, groups)?.scope).toBe('TAG');
  expect(governingSchedule(schedules, { id: 'd4', groupId: null, tags: [] }, groups)).toBeNull();
});
