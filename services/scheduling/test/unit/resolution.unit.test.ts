import { resolve, timeline, winnerAt } from '../../src/domain/resolution.js';
import { at, plan } from '../fixtures/plans.js';

const AMS = 'Europe/Amsterdam';
const NY = 'America/New_York';
const winnerId = (plans: Parameters<typeof resolve>[0], zone: string, iso: string) => resolve(plans, zone, at(iso)).winner?.id ?? null;

describe('priorities and ties', () => {
  const low = plan('low', { priority: 2 });
  const high = plan('high', { priority: 4, start: '09:00', end: '17:00' });
  test('the highest priority playing wins; outside its hours the lower one plays', () => {
    expect(winnerId([low, high], 'UTC', '2026-05-04T10:00:00Z')).toBe('high');
    expect(winnerId([low, high], 'UTC', '2026-05-04T18:00:00Z')).toBe('low');
  });
  test('equal priorities: the most recently modified wins, then the smallest id', () => {
    const a = plan('a', { modified: 1000 });
    const b = plan('b', { modified: 2000 });
    expect(winnerId([a, b], 'UTC', '2026-05-04T10:00:00Z')).toBe('b');
    expect(winnerId([plan('y'), plan('x')], 'UTC', '2026-05-04T10:00:00Z')).toBe('x');
  });
  test('every schedule is explained; the winner first', () => {
    const r = resolve([low, high, plan('weekend', { days: '0000011', priority: 5 })], 'UTC', at('2026-05-04T10:00:00Z'));
    expect(r.considered.map((c) => [c.plan.id, c.verdict])).toEqual([
      ['high', 'PLAYING'],
      ['weekend', 'WRONG_WEEKDAY'],
      ['low', 'OUTRANKED'],
    ]);
    expect(r.considered[0]!.window).toEqual({ from: at('2026-05-04T09:00:00Z'), to: at('2026-05-04T17:00:00Z') });
    expect(r.nextChange).toBe(at('2026-05-04T17:00:00Z'));
  });
});

describe('windows', () => {
  test('weekdays: Monday 2026-05-04 and Saturday 2026-05-09', () => {
    const weekdays = plan('w', { days: '1111100' });
    expect(winnerId([weekdays], 'UTC', '2026-05-04T12:00:00Z')).toBe('w');
    expect(resolve([weekdays], 'UTC', at('2026-05-09T12:00:00Z')).considered[0]!.verdict).toBe('WRONG_WEEKDAY');
  });
  test('time of day: start inclusive, end exclusive', () => {
    const p = plan('p', { start: '08:00', end: '18:00' });
    expect(winnerId([p], 'UTC', '2026-05-04T07:59:59Z')).toBeNull();
    expect(winnerId([p], 'UTC', '2026-05-04T08:00:00Z')).toBe('p');
    expect(winnerId([p], 'UTC', '2026-05-04T17:59:59Z')).toBe('p');
    expect(resolve([p], 'UTC', at('2026-05-04T18:00:00Z')).considered[0]!.verdict).toBe('OUTSIDE_HOURS');
  });
  test('overnight: 22:00-06:00 belongs to the day it starts on (Friday only: plays into Saturday morning)', () => {
    const p = plan('night', { start: '22:00', end: '06:00', days: '0000100' });
    expect(winnerId([p], 'UTC', '2026-05-08T23:00:00Z')).toBe('night');
    expect(winnerId([p], 'UTC', '2026-05-09T05:59:00Z')).toBe('night');
    expect(winnerId([p], 'UTC', '2026-05-09T06:00:00Z')).toBeNull();
    expect(winnerId([p], 'UTC', '2026-05-08T05:00:00Z')).toBeNull(); // Thursday's night is not enabled
  });
  test('the device zone decides: 09:00-17:00 in New York is 13:00-21:00 UTC in May', () => {
    const p = plan('p', { start: '09:00', end: '17:00' });
    expect(winnerId([p], NY, '2026-05-04T12:59:00Z')).toBeNull();
    expect(winnerId([p], NY, '2026-05-04T13:00:00Z')).toBe('p');
    expect(winnerId([p], NY, '2026-05-04T20:59:00Z')).toBe('p');
  });
  test('expired and future schedules, with the overnight tail of the last day', () => {
    const past = plan('past', { until: '2026-05-01', start: '22:00', end: '02:00' });
    const future = plan('future', { from: '2026-06-01' });
    expect(winnerId([past], 'UTC', '2026-05-02T01:00:00Z')).toBe('past');
    const r = resolve([past, future], 'UTC', at('2026-05-04T10:00:00Z'));
    expect(Object.fromEntries(r.considered.map((c) => [c.plan.id, c.verdict]))).toEqual({ past: 'ENDED', future: 'NOT_STARTED' });
    expect(r.winner).toBeNull();
    expect(r.nextChange).toBe(at('2026-06-01T00:00:00Z'));
  });
  test('a device in no schedule plays nothing, and that never changes', () => {
    expect(resolve([], AMS, at('2026-05-04T10:00:00Z'))).toEqual({ winner: null, considered: [], nextChange: null });
  });
  test('a schedule whose playlist was deleted never wins; the next one plays', () => {
    const gone = plan('gone', { priority: 5, content: false });
    const fallback = plan('fallback', { priority: 1 });
    const r = resolve([gone, fallback], 'UTC', at('2026-05-04T10:00:00Z'));
    expect(r.winner?.id).toBe('fallback');
    expect(r.considered.map((c) => [c.plan.id, c.verdict])).toEqual([
      ['fallback', 'PLAYING'],
      ['gone', 'CONTENT_MISSING'],
    ]);
  });
});

// Europe/Amsterdam, 2026: clocks go 02:00 CET -> 03:00 CEST on Sunday 29 March (01:00Z) and
// 03:00 CEST -> 02:00 CET on Sunday 25 October (01:00Z).
describe('DST (the rule in zone-clock.ts: a wall time is the first instant the clock shows it or later)', () => {
  test('spring forward: a window starting in the gap starts when the clock jumps', () => {
    const p = plan('p', { start: '02:30', end: '04:00' });
    expect(winnerId([p], AMS, '2026-03-29T00:59:59Z')).toBeNull(); // 01:59:59 CET
    const r = resolve([p], AMS, at('2026-03-29T01:00:00Z')); // 03:00 CEST
    expect(r.winner?.id).toBe('p');
    expect(r.considered[0]!.window).toEqual({ from: at('2026-03-29T01:00:00Z'), to: at('2026-03-29T02:00:00Z') });
    expect(r.nextChange).toBe(at('2026-03-29T02:00:00Z'));
  });
  test('spring forward: a window wholly inside the gap does not play that night (and does the night before)', () => {
    const p = plan('p', { start: '02:10', end: '02:50' });
    expect(timeline([p], AMS, at('2026-03-28T23:00:00Z'), at('2026-03-29T03:00:00Z'))).toEqual([
      { from: at('2026-03-28T23:00:00Z'), to: at('2026-03-29T03:00:00Z'), winner: null },
    ]);
    expect(winnerId([p], AMS, '2026-03-28T01:20:00Z')).toBe('p');
  });
  test('spring forward: an overnight window 22:00-06:00 lasts one hour less', () => {
    const p = plan('p', { start: '22:00', end: '06:00', days: '0000010' });
    const segments = timeline([p], AMS, at('2026-03-28T12:00:00Z'), at('2026-03-29T12:00:00Z')).filter((s) => s.winner);
    expect(segments.map((s) => [s.from, s.to])).toEqual([[at('2026-03-28T21:00:00Z'), at('2026-03-29T04:00:00Z')]]);
  });
  test('fall back: 02:00-03:00 plays through both passes of the repeated hour', () => {
    const p = plan('p', { start: '02:00', end: '03:00' });
    expect(winnerId([p], AMS, '2026-10-24T23:59:00Z')).toBeNull(); // 01:59 CEST
    expect(winnerId([p], AMS, '2026-10-25T00:30:00Z')).toBe('p'); // 02:30 CEST
    expect(winnerId([p], AMS, '2026-10-25T01:30:00Z')).toBe('p'); // 02:30 CET
    expect(winnerId([p], AMS, '2026-10-25T02:00:00Z')).toBeNull(); // 03:00 CET
  });
  test('fall back: 01:00-02:30 ends at the first 02:30 and does not play again when the clock falls back', () => {
    const p = plan('p', { start: '01:00', end: '02:30' });
    expect(winnerId([p], AMS, '2026-10-25T00:29:00Z')).toBe('p');
    expect(winnerId([p], AMS, '2026-10-25T01:15:00Z')).toBeNull(); // 02:15 CET, second pass
    expect(resolve([p], AMS, at('2026-10-25T00:29:00Z')).nextChange).toBe(at('2026-10-25T00:30:00Z'));
  });
  test('fall back in New York (1 November 2026, 02:00 EDT -> 01:00 EST): 01:30-03:00 runs 2.5 real hours', () => {
    const p = plan('p', { start: '01:30', end: '03:00' });
    const segments = timeline([p], NY, at('2026-11-01T00:00:00Z'), at('2026-11-02T00:00:00Z')).filter((s) => s.winner);
    expect(segments.map((s) => [new Date(s.from).toISOString(), new Date(s.to).toISOString()])).toEqual([
      ['2026-11-01T05:30:00.000Z', '2026-11-01T08:00:00.000Z'],
    ]);
  });
});

describe('timeline', () => {
  test('consecutive stretches with the same winner merge; gaps are null', () => {
    const base = plan('base', { priority: 1, start: '08:00', end: '20:00' });
    const lunch = plan('lunch', { priority: 4, start: '12:00', end: '13:00' });
    const t = timeline([base, lunch], 'UTC', at('2026-05-04T00:00:00Z'), at('2026-05-05T00:00:00Z'));
    expect(t.map((s) => [new Date(s.from).toISOString().slice(11, 16), s.winner?.id ?? null])).toEqual([
      ['00:00', null],
      ['08:00', 'base'],
      ['12:00', 'lunch'],
      ['13:00', 'base'],
      ['20:00', null],
    ]);
    expect(winnerAt([base, lunch], 'UTC', at('2026-05-04T12:30:00Z'))?.id).toBe('lunch');
  });
});
