import { Query } from 'mingo/query';
import { QUERY_OPTIONS } from '../../src/lmdb/documents.lmdb-query.js';
import { orderToSort, resolveLimit, whereToFilter, type FieldMap } from '@pylon/kit/graphql/filters';
import { AppError } from '@pylon/kit/errors';

const fields: FieldMap = {
  name: { path: 'name', kind: 'string' },
  score: { path: 'score', kind: 'number' },
  active: { path: 'active', kind: 'boolean' },
  tags: { path: 'tags', kind: 'stringList' },
  at: { path: 'at', kind: 'date' },
  loc: { nested: { city: { path: 'location.city', kind: 'string' } } },
};

const docs = [
  { name: 'Lobby A', score: 10, active: true, tags: ['vip', 'lobby'], at: '2026-01-01T00:00:00.000Z', location: { city: 'Oslo' } },
  { name: 'Lobby B', score: 20, active: false, tags: [], at: '2026-02-01T00:00:00.000Z', location: { city: 'Rome' } },
  { name: 'Hall (1)', score: 30, active: true, tags: ['hall'], at: '2026-03-01T00:00:00.000Z', location: { city: 'Oslo' } },
];
const run = (where: unknown) =>
  new Query(whereToFilter(where, fields), QUERY_OPTIONS)
    .find<(typeof docs)[number]>(docs)
    .all()
    .map((d) => d.name);

describe('where → documents filter', () => {
  test.each([
    [{ name: { eq: 'Lobby A' } }, ['Lobby A']],
    [{ name: { neq: 'Lobby A' } }, ['Lobby B', 'Hall (1)']],
    [{ name: { contains: '(1' } }, ['Hall (1)']],
    [{ name: { ncontains: 'Lobby' } }, ['Hall (1)']],
    [{ name: { startsWith: 'Lob' } }, ['Lobby A', 'Lobby B']],
    [{ name: { endsWith: 'B' } }, ['Lobby B']],
    [{ name: { nstartsWith: 'Lob', nendsWith: ')' } }, []],
    [{ score: { gt: 10 } }, ['Lobby B', 'Hall (1)']],
    [{ score: { gte: 10, lt: 30 } }, ['Lobby A', 'Lobby B']],
    [{ score: { lte: 10 } }, ['Lobby A']],
    [{ score: { ngt: 10 } }, ['Lobby A']],
    [{ score: { in: [10, 30] } }, ['Lobby A', 'Hall (1)']],
    [{ score: { nin: [10, 30] } }, ['Lobby B']],
    [{ active: { eq: false } }, ['Lobby B']],
    [{ at: { gte: '2026-02-01T00:00:00Z' } }, ['Lobby B', 'Hall (1)']],
    [{ tags: { some: { eq: 'vip' } } }, ['Lobby A']],
    [{ tags: { none: { eq: 'vip' } } }, ['Lobby B', 'Hall (1)']],
    [{ tags: { any: false } }, ['Lobby B']],
    [{ loc: { city: { eq: 'Oslo' } } }, ['Lobby A', 'Hall (1)']],
    [{ or: [{ score: { eq: 10 } }, { score: { eq: 20 } }] }, ['Lobby A', 'Lobby B']],
    [{ and: [{ active: { eq: true } }, { loc: { city: { eq: 'Oslo' } } }], name: { contains: 'Hall' } }, ['Hall (1)']],
  ])('%j', (where, expected) => {
    expect(run(where)).toEqual(expected);
  });

  test('regex metacharacters in substrings are literal', () => {
    expect(run({ name: { contains: '.*' } })).toEqual([]);
  });

  test.each([
    [{ name: { like: 'x' } }, "unknown operator 'like' for where.name"],
    [{ score: { contains: '1' } }, "unknown operator 'contains' for where.score"],
    [{ nope: { eq: 1 } }, 'where.nope is not a filterable field'],
    [{ name: 'x' }, 'where.name must be an object of operators'],
    [{ name: { in: 'x' } }, 'where.name.in must be a list'],
  ])('refuses %j', (where, message) => {
    expect(() => whereToFilter(where, fields)).toThrow(new AppError('BAD_USER_INPUT', message));
  });

  test('refuses pathological nesting', () => {
    let w: Record<string, unknown> = { name: { eq: 'x' } };
    for (let i = 0; i < 20; i++) w = { and: [w] };
    expect(() => whereToFilter(w, fields)).toThrow('nested too deeply');
  });
});

describe('order → sort', () => {
  test('keeps priority and adds the fallback tiebreaker', () => {
    expect(orderToSort([{ score: 'DESC' }, { loc: { city: 'ASC' } }], fields, { id: 1 })).toEqual({ score: -1, 'location.city': 1, id: 1 });
  });
  test('refuses unknown fields and directions', () => {
    expect(() => orderToSort([{ nope: 'ASC' }], fields)).toThrow('order.nope is not a sortable field');
    expect(() => orderToSort([{ name: 'UP' }], fields)).toThrow('order.name must be ASC or DESC');
  });
});

describe('limit', () => {
  test('defaults, accepts up to the maximum, refuses beyond', () => {
    expect(resolveLimit(undefined)).toBe(100);
    expect(resolveLimit(1000)).toBe(1000);
    expect(() => resolveLimit(99999999)).toThrow('limit must be at most 1000');
    expect(() => resolveLimit(-1)).toThrow('limit must be a non-negative integer');
  });
});

describe('timestamps', () => {
  test('are compared as instants whatever the input precision', () => {
    expect(whereToFilter({ at: { gte: '2026-02-01T00:00:00Z' } }, fields)).toEqual({ at: { $gte: '2026-02-01T00:00:00.000Z' } });
    expect(whereToFilter({ at: { in: ['2026-02-01T01:00:00+01:00'] } }, fields)).toEqual({ at: { $in: ['2026-02-01T00:00:00.000Z'] } });
  });
  test('refuses non-dates', () => {
    expect(() => whereToFilter({ at: { gt: 'yesterday' } }, fields)).toThrow('where.at takes ISO 8601 timestamps');
  });
});
