import { createBoundedCache } from '../../src/graphql/bounded-cache.js';

describe('a cache bounded by entries and bytes (issue 34, M1)', () => {
  test('the least recently used entries go first, whichever bound is reached', () => {
    const c = createBoundedCache<string>({ maxEntries: 3, maxBytes: 100 });
    c.set('a', 'A', 10);
    c.set('b', 'B', 10);
    c.set('c', 'C', 10);
    expect(c.get('a')).toBe('A'); // a is now the most recent
    c.set('d', 'D', 10); // over 3 entries: b goes
    expect([c.get('b'), c.get('c'), c.get('a'), c.get('d')]).toEqual([undefined, 'C', 'A', 'D']);
    c.set('e', 'E', 85); // over 100 bytes: c, then a go (d, e: 95 bytes)
    expect(c.size).toBe(2);
    expect(c.bytes).toBe(95);
    expect([c.get('c'), c.get('a'), c.get('d'), c.get('e')]).toEqual([undefined, undefined, 'D', 'E']);
  });

  test('an entry larger than the whole budget is not kept; replacing a key counts its new size only', () => {
    const c = createBoundedCache<string>({ maxEntries: 10, maxBytes: 100 });
    c.set('big', 'X', 101);
    expect(c.get('big')).toBeUndefined();
    c.set('k', 'v1', 60);
    c.set('k', 'v2', 30);
    expect(c.bytes).toBe(30);
    expect(c.get('k')).toBe('v2');
  });
});

test('has() does not refresh an entry; delete() and clear() give its bytes back', () => {
  const c = createBoundedCache<string>({ maxEntries: 2, maxBytes: 100 });
  c.set('a', 'A', 10);
  c.set('b', 'B', 20);
  expect(c.has('a')).toBe(true);
  c.set('c', 'C', 5); // a is still the least recently used: it goes
  expect([c.has('a'), c.has('b'), c.has('c')]).toEqual([false, true, true]);
  expect([c.delete('b'), c.delete('b'), c.bytes]).toEqual([true, false, 5]);
  c.clear();
  expect([c.size, c.bytes]).toEqual([0, 0]);
});
