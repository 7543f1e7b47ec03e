import { isoSeconds } from '../../src/time.js';

test('isoSeconds gives YYYY-MM-DDTHH:MM:SSZ from any instant form', () => {
  expect(isoSeconds('2026-06-01T11:59:00.123Z')).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds('2026-06-01T11:59:00Z')).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds('2026-06-01T13:59:00+02:00')).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds(Date.parse('2026-06-01T11:59:00Z'))).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds(new Date('2026-06-01T11:59:00.999Z'))).toBe('2026-06-01T11:59:00Z');
  expect(isoSeconds('not a date')).toBeNull();
  expect(isoSeconds(null)).toBeNull();
});
