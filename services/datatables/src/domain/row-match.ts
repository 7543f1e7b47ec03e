/**
 * Whether a row's data matches parsed filter conditions, in memory: the same answer the store gives
 * for the storage filter the repository builds from them (data values and operands are already
 * coerced to the column's type, so every comparison is within one type). Used to keep filtered
 * counts exact across writes without recounting; a property test holds it to the store's answers.
 */
import type { Cell, RowData } from './data-table.js';
import type { RowCondition } from './row-query.js';

/** A literal text as a regular expression (the storage filter's `contains` uses the same). */
export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const present = (v: unknown): v is string | number | boolean => v !== null && v !== undefined;

/** Ordered comparison as the store does it: only between values of one type; null and missing never compare. */
function compare(x: unknown, v: Cell, test: (order: number) => boolean): boolean {
  if (!present(x) || !present(v) || typeof x !== typeof v) return false;
  return test(x < v ? -1 : x > v ? 1 : 0);
}

const equal = (x: unknown, v: Cell) => (v === null ? !present(x) : x === v);
const empty = (x: unknown) => !present(x) || x === '';

function matches(c: RowCondition, data: RowData): boolean {
  const x: unknown = Object.prototype.hasOwnProperty.call(data, c.key) ? data[c.key] : undefined;
  switch (c.op) {
    case 'eq':
      return equal(x, c.value);
    case 'neq':
      return !equal(x, c.value);
    case 'gt':
      return compare(x, c.value, (o) => o > 0);
    case 'gte':
      return compare(x, c.value, (o) => o >= 0);
    case 'lt':
      return compare(x, c.value, (o) => o < 0);
    case 'lte':
      return compare(x, c.value, (o) => o <= 0);
    case 'contains':
      return typeof x === 'string' && new RegExp(escapeRegex(c.value), 'i').test(x);
    case 'notContains':
      return !(typeof x === 'string' && new RegExp(escapeRegex(c.value), 'i').test(x));
    case 'empty':
      return empty(x);
    case 'notEmpty':
      return !empty(x);
    case 'inRange':
      return compare(x, c.value[0], (o) => o >= 0) && compare(x, c.value[1], (o) => o <= 0);
    case 'outOfRange':
      return compare(x, c.value[0], (o) => o < 0) || compare(x, c.value[1], (o) => o > 0);
  }
}

export function rowMatches(conditions: readonly RowCondition[], data: RowData): boolean {
  return conditions.every((c) => matches(c, data));
}
