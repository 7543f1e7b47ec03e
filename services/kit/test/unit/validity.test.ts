import { checkValidityInput, intersectWindows, nextValidityEdge, OPEN_WINDOW, validityAt, windowOf } from '../../src/validity.js';
import { isAppError } from '../../src/errors.js';

const T = Date.parse('2026-12-01T12:00:00Z');
const w = windowOf('2026-12-01T12:00:00Z', '2026-12-01T13:00:00Z');

test('validityAt: the start is inclusive, the end exclusive, null sides open', () => {
  expect(validityAt(w, T - 1)).toBe('NOT_YET_VALID');
  expect(validityAt(w, T)).toBe('VALID');
  expect(validityAt(w, T + 3_600_000 - 1)).toBe('VALID');
  expect(validityAt(w, T + 3_600_000)).toBe('EXPIRED');
  expect(validityAt(OPEN_WINDOW, 0)).toBe('VALID');
  expect(validityAt({ validFrom: null, validUntil: T }, T - 1)).toBe('VALID');
});

test('intersectWindows keeps the later start and the earlier end; an empty intersection is never valid', () => {
  const file = windowOf('2026-12-01T12:30:00Z', null);
  expect(intersectWindows(w, file)).toEqual({ validFrom: T + 1_800_000, validUntil: T + 3_600_000 });
  expect(intersectWindows(OPEN_WINDOW, OPEN_WINDOW)).toEqual(OPEN_WINDOW);
  const empty = intersectWindows(w, windowOf('2026-12-01T14:00:00Z', null));
  for (const t of [T - 1, T, T + 3_600_000, T + 7_200_000]) expect(validityAt(empty, t)).not.toBe('VALID');
});

test('nextValidityEdge: the first start or end strictly after the instant', () => {
  const later = windowOf('2026-12-01T12:30:00Z', null);
  expect(nextValidityEdge([w, later], T - 1)).toBe(T);
  expect(nextValidityEdge([w, later], T)).toBe(T + 1_800_000);
  expect(nextValidityEdge([w, later], T + 1_800_000)).toBe(T + 3_600_000);
  expect(nextValidityEdge([w, later], T + 3_600_000)).toBeNull();
  expect(nextValidityEdge([], T)).toBeNull();
});

test('checkValidityInput normalises to UTC and names the field on bad input or an inverted window', () => {
  expect(checkValidityInput({ validFrom: '2026-12-01T13:00:00+01:00', validUntil: '2026-12-02' })).toEqual({
    validFrom: '2026-12-01T12:00:00Z',
    validUntil: '2026-12-02T00:00:00Z',
  });
  expect(checkValidityInput({})).toEqual({ validFrom: null, validUntil: null });
  const fieldOf = (input: Parameters<typeof checkValidityInput>[0], names?: Parameters<typeof checkValidityInput>[1]) => {
    try {
      checkValidityInput(input, names);
    } catch (e) {
      if (isAppError(e)) return [e.code, e.details.field, e.message];
    }
    return null;
  };
  expect(fieldOf({ validFrom: 'tomorrow' })).toEqual(['BAD_USER_INPUT', 'validFrom', expect.stringContaining('ISO 8601')]);
  // A date-time without a zone would depend on the server's zone: refused.
  expect(fieldOf({ validUntil: '2026-12-01T12:00:00' })?.[1]).toBe('validUntil');
  expect(fieldOf({ validFrom: '2026-12-01T12:00:00Z', validUntil: '2026-12-01T12:00:00Z' })).toEqual([
    'BAD_USER_INPUT',
    'validUntil',
    'validUntil must be after validFrom',
  ]);
  expect(fieldOf({ validFrom: '2026-12-02T00:00:00Z', validUntil: '2026-12-01T00:00:00Z' }, { validFrom: 'valid_from', validUntil: 'valid_until' })?.[1]).toBe(
    'valid_until',
  );
});
