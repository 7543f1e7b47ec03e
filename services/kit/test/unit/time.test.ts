import { isKnownZone, isoSeconds, wallAt, zoneFormatsKept } from '../../src/time.js';

test('isoSeconds gives YYYY-MM-DDTHH:MM:SSZ from any instant form', () => {
  expect(isoSeconds('2026-06-01T11:59:00.123Z')).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds('2026-06-01T11:59:00Z')).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds('2026-06-01T13:59:00+02:00')).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds(Date.parse('2026-06-01T11:59:00Z'))).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds(new Date('2026-06-01T11:59:00.999Z'))).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds('not a date')).toBeNull();
  expect(isoSeconds(null)).toBeNull();
});

test('wallAt: the wall clock in a zone, across a DST change; isKnownZone refuses what Intl does not know', () => {
  // 2026-03-29 01:00Z: Berlin goes from 02:00 CET to 03:00 CEST.
  expect(wallAt('Europe/Berlin', Date.parse('2026-03-29T00:59:59.250Z'))).toBe(Date.parse('2026-03-29T01:59:59.250Z'));
  expect(wallAt('Europe/Berlin', Date.parse('2026-03-29T01:00:00Z'))).toBe(Date.parse('2026-03-29T03:00:00Z'));
  expect(wallAt('America/New_York', Date.parse('2026-07-01T04:00:00Z'))).toBe(Date.parse('2026-07-01T00:00:00Z'));
  expect(isKnownZone('Europe/Berlin')).toBe(true);
  expect(isKnownZone('Mars/Olympus_Mons')).toBe(false);
});

test('the zone formats kept stay bounded, however many spellings of a zone are asked for', () => {
  // Intl takes any letter case: each spelling is a known zone, and would be one more format kept.
  const letters = [...'europeamsterdam'];
  const spelling = (i: number) =>
    letters
      .map((c, j) => ((i >> j) & 1 ? c.toUpperCase() : c))
      .join('')
      .replace(/^(.{6})/, '$1/');
  for (let i = 0; i < 1200; i++) expect(isKnownZone(spelling(i))).toBe(true);
  expect(zoneFormatsKept()).toBeLessThanOrEqual(1024);
  expect(wallAt('Europe/Berlin', Date.parse('2026-07-01T10:00:00Z'))).toBe(Date.parse('2026-07-01T12:00:00Z'));
});
