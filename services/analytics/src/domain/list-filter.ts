/**
 * The grammar of the spec's `where` / `order` inputs (HotChocolate style) for the analytics queries,
 * parsed once into conditions and sort terms: the one place of their limits and error messages.
 * repositories/sql/where.sql.ts renders the parsed form as ClickHouse SQL; `filterAndSort` below
 * evaluates it over records in memory (the zero-filled series, whose empty periods exist only here).
 *
 *   where: { eventName: { startsWith: "menu" }, or: [{ deviceId: { eq: "d1" } }, { timestamp: { gte: "2026-01-01" } }] }
 *   order: [{ timestamp: DESC }, { id: ASC }]
 *
 * Semantics (the same in SQL and in memory): string operations are case-sensitive; a string field
 * without a value is '' (so `eq: null` finds it); dates compare as instants; a number field without
 * a value matches no comparison (but `nin`); several operations and fields combine with and.
 */
import { badInput } from '@pylon/kit';
import { MAX_YEAR, MIN_YEAR } from './date-range.js';

export type FieldKind = 'string' | 'number' | 'date';
/** The fields a query can filter and sort on, with their kinds. */
export type FieldKinds = Readonly<Record<string, { kind: FieldKind }>>;

export const MAX_CONDITIONS = 100;
export const MAX_DEPTH = 8;
export const MAX_IN = 1000;
/** The values of every in / nin of one where together. */
export const MAX_IN_TOTAL = 5000;
/** The items of every and / or list of one where together. */
export const MAX_ITEMS = 100;

/** Negated operations and what they negate. */
export const NEGATED: Readonly<Record<string, string>> = {
  ngt: 'gt',
  ngte: 'gte',
  nlt: 'lt',
  nlte: 'lte',
  ncontains: 'contains',
  nstartsWith: 'startsWith',
  nendsWith: 'endsWith',
};
const STRING_OPS = ['eq', 'neq', 'contains', 'ncontains', 'startsWith', 'nstartsWith', 'endsWith', 'nendsWith', 'in', 'nin'];
const COMPARABLE_OPS = ['eq', 'neq', 'gt', 'ngt', 'gte', 'ngte', 'lt', 'nlt', 'lte', 'nlte', 'in', 'nin'];

type Scalar = string | number;
/** One operation on one field; dates as ISO 8601 UTC text, `null` only for a string field's eq/neq. */
export interface Leaf {
  field: string;
  kind: FieldKind;
  op: string;
  value: Scalar | Scalar[] | null;
}
export type Condition = { and: Condition[] } | { or: Condition[] } | Leaf;
export interface SortTerm {
  field: string;
  dir: 'ASC' | 'DESC';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The instants the analytics store's DateTime64 holds (1900-01-01 to 2299-12-31 UTC). JavaScript
 * parses wider (expanded years such as +010000), which the store refuses as a parse failure (code
 * 41, once answered as an internal error), so a date outside is refused here, naming the field.
 */
const MIN_DATE = Date.UTC(MIN_YEAR, 0, 1);
const MAX_DATE = Date.UTC(MAX_YEAR + 1, 0, 1) - 1;

function scalar(field: string, kind: FieldKind, v: unknown): Scalar {
  const bad = () =>
    badInput(
      `where.${field}`,
      `where.${field}: ${kind === 'number' ? 'a number' : kind === 'date' ? `an ISO 8601 date-time between ${MIN_YEAR} and ${MAX_YEAR}` : 'a string'} is expected`,
    );
  if (kind === 'number') {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad();
    return v;
  }
  if (typeof v !== 'string' || v.length > 1000) throw bad();
  if (kind !== 'date') return v;
  const at = Date.parse(v);
  if (!(at >= MIN_DATE && at <= MAX_DATE)) throw bad();
  return new Date(at).toISOString();
}

function leaf(field: string, kind: FieldKind, op: string, v: unknown): Leaf {
  const allowed = kind === 'string' ? STRING_OPS : COMPARABLE_OPS;
  if (!allowed.includes(op)) throw badInput(`where.${field}`, `where.${field}.${op} is not an operation on this field`);
  if (v === null && (op === 'eq' || op === 'neq') && kind === 'string') return { field, kind, op, value: null };
  if (op === 'in' || op === 'nin') {
    if (!Array.isArray(v)) throw badInput(`where.${field}`, `where.${field}.${op} must be a list`);
    if (v.length > MAX_IN) throw badInput(`where.${field}`, `where.${field}.${op} holds more than ${MAX_IN} values`);
    return { field, kind, op, value: v.map((x) => scalar(field, kind, x)) };
  }
  return { field, kind, op, value: scalar(field, kind, v) };
}

/** The where object as one condition (null when it says nothing); refuses what the fields do not allow, naming `where.<field>`. */
export function parseWhere(where: unknown, fields: FieldKinds): Condition | null {
  let count = 0;
  let items = 0;
  let listed = 0;
  const walk = (w: unknown, depth: number): Condition | null => {
    if (w === null || w === undefined) return null;
    if (!isRecord(w)) throw badInput('where', 'where must be an object');
    if (depth > MAX_DEPTH) throw badInput('where', `where nests deeper than ${MAX_DEPTH}`);
    const parts: Condition[] = [];
    for (const [key, v] of Object.entries(w)) {
      if (v === undefined) continue;
      if (key === 'and' || key === 'or') {
        if (!Array.isArray(v)) throw badInput('where', `where.${key} must be a list`);
        items += v.length;
        if (items > MAX_ITEMS) throw badInput('where', `where's and / or lists hold more than ${MAX_ITEMS} items`);
        const inner = v.map((x) => walk(x, depth + 1) ?? { and: [] });
        if (inner.length) parts.push(key === 'and' ? { and: inner } : { or: inner });
        continue;
      }
      const f = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (!f) throw badInput(`where.${key}`, `where.${key}: no such field to filter on`);
      if (!isRecord(v)) throw badInput(`where.${key}`, `where.${key} must be an object of operations`);
      for (const [op, x] of Object.entries(v)) {
        if (x === undefined) continue;
        if (++count > MAX_CONDITIONS) throw badInput('where', `where holds more than ${MAX_CONDITIONS} conditions`);
        const l = leaf(key, f.kind, op, x);
        if (Array.isArray(l.value) && (listed += l.value.length) > MAX_IN_TOTAL)
          throw badInput(`where.${key}`, `where's in / nin lists hold more than ${MAX_IN_TOTAL} values together`);
        parts.push(l);
      }
    }
    return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : { and: parts };
  };
  return walk(where, 0);
}

/** The order inputs as sort terms (empty when none); refuses unknown fields and directions, naming `order.<field>`. */
export function parseOrder(order: unknown, fields: FieldKinds): SortTerm[] {
  if (order === null || order === undefined) return [];
  if (!Array.isArray(order)) throw badInput('order', 'order must be a list');
  const terms: SortTerm[] = [];
  for (const o of order) {
    if (!isRecord(o)) throw badInput('order', 'each order item must be an object');
    for (const [field, dir] of Object.entries(o)) {
      if (dir === undefined || dir === null) continue;
      if (!Object.hasOwn(fields, field)) throw badInput(`order.${field}`, `order.${field}: no such field to sort on`);
      if (dir !== 'ASC' && dir !== 'DESC') throw badInput(`order.${field}`, `order.${field} must be ASC or DESC`);
      terms.push({ field, dir });
    }
  }
  return terms;
}

/** The `where` / `order` arguments of a list query as given (validated when parsed). */
export interface ListArgs {
  where?: unknown;
  order?: unknown;
}

/** `where` and `order` parsed: the condition (null: none) and the sort terms. */
export interface ParsedList {
  condition: Condition | null;
  terms: SortTerm[];
}

/** Both parsed, refusing what the fields do not allow; `null` when they say nothing (`where: {}`, `order: []`: the queries skip all list work). */
export function parseList(l: ListArgs, fields: FieldKinds): ParsedList | null {
  const condition = parseWhere(l.where, fields);
  const terms = parseOrder(l.order, fields);
  return condition || terms.length ? { condition, terms } : null;
}

// ---- in memory ----

/** A record's field as a comparable value: text ('' when absent), a number or an instant (epoch ms), or null. */
function valueOf(record: Readonly<Record<string, unknown>>, field: string, kind: FieldKind): string | number | null {
  const v = record[field];
  if (kind === 'string') return v === null || v === undefined ? '' : String(v);
  if (v === null || v === undefined) return null;
  if (kind === 'date') return Date.parse(String(v));
  return Number(v);
}
const operand = (kind: FieldKind, x: Scalar): string | number => (kind === 'date' ? Date.parse(String(x)) : x);

/** Each in / nin leaf's values as a set of operands, built once per leaf (not once per record). */
const operandSets = new WeakMap<Leaf, Set<string | number>>();
function operandSet(l: Leaf): Set<string | number> {
  let set = operandSets.get(l);
  if (!set) operandSets.set(l, (set = new Set((l.value as Scalar[]).map((x) => operand(l.kind, x)))));
  return set;
}

function test(record: Readonly<Record<string, unknown>>, l: Leaf, op = l.op): boolean {
  const positive = NEGATED[op];
  if (positive) {
    if (l.kind !== 'string' && valueOf(record, l.field, l.kind) === null) return false; // NOT (NULL) is not true
    return !test(record, l, positive);
  }
  const v = valueOf(record, l.field, l.kind);
  if (l.value === null) return op === 'eq' ? v === '' : v !== '';
  if (op === 'in' || op === 'nin') {
    const has = v !== null && operandSet(l).has(v);
    return op === 'in' ? has : !has;
  }
  if (v === null) return false;
  const x = operand(l.kind, l.value as Scalar);
  switch (op) {
    case 'eq':
      return v === x;
    case 'neq':
      return v !== x;
    case 'contains':
      return String(v).includes(String(x));
    case 'startsWith':
      return String(v).startsWith(String(x));
    case 'endsWith':
      return String(v).endsWith(String(x));
    case 'gt':
      return v > x;
    case 'gte':
      return v >= x;
    case 'lt':
      return v < x;
    default:
      return v <= x;
  }
}

/** Whether the record satisfies the condition. */
export function matches(record: Readonly<Record<string, unknown>>, c: Condition): boolean {
  if ('and' in c) return c.and.every((x) => matches(record, x));
  if ('or' in c) return c.or.some((x) => matches(record, x));
  return test(record, c);
}

/**
 * The records that satisfy `where`, sorted by `order` (a stable sort: the records' own order after
 * the terms; absent numbers and dates last, as ClickHouse sorts NULL), then the first `limit`.
 */
export function filterAndSort<T extends object>(records: readonly T[], { condition, terms }: ParsedList, fields: FieldKinds, limit: number): T[] {
  const kept = condition ? records.filter((r) => matches(r as Record<string, unknown>, condition)) : [...records];
  if (!terms.length) return kept.slice(0, limit);
  // Each record's sort values read once (a date parsed once, not once per comparison), then a
  // stable sort of the indices.
  const T = terms.length;
  const keys = new Array<string | number | null>(kept.length * T);
  kept.forEach((r, i) => terms.forEach((t, j) => (keys[i * T + j] = valueOf(r as Record<string, unknown>, t.field, fields[t.field]!.kind))));
  const order = Array.from(kept.keys());
  order.sort((a, b) => {
    for (let j = 0; j < T; j++) {
      const x = keys[a * T + j] as string | number | null,
        y = keys[b * T + j] as string | number | null;
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (terms[j]!.dir === 'ASC' ? 1 : -1);
    }
    return a - b;
  });
  return order.slice(0, limit).map((i) => kept[i]!);
}
