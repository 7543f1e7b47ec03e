/**
 * HotChocolate-style `where` / `order` inputs (the spec's filtering and sorting, as the documents
 * subgraphs take them through kit's filters.ts) translated to ClickHouse SQL for the analytics log
 * queries. A query declares which GraphQL fields map to which columns; every value is bound as a
 * parameter (`{w0:String}` ...), never spliced; columns and directions come from the declaration.
 *
 *   where: { eventName: { startsWith: "menu" }, or: [{ deviceId: { eq: "d1" } }, { timestamp: { gte: "2026-01-01" } }] }
 *   order: [{ timestamp: DESC }, { id: ASC }]
 */
import { badInput, type SqlParams } from '@pylon/kit';

export type ColumnKind = 'string' | 'number' | 'date';
export type ColumnMap = Readonly<Record<string, { column: string; kind: ColumnKind }>>;

const MAX_CONDITIONS = 100;
const MAX_DEPTH = 8;
const MAX_IN = 1000;

const NEGATED: Record<string, string> = {
  ngt: 'gt',
  ngte: 'gte',
  nlt: 'lt',
  nlte: 'lte',
  ncontains: 'contains',
  nstartsWith: 'startsWith',
  nendsWith: 'endsWith',
};
const COMPARE: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
const STRING_OPS = ['eq', 'neq', 'contains', 'ncontains', 'startsWith', 'nstartsWith', 'endsWith', 'nendsWith', 'in', 'nin'];
const COMPARABLE_OPS = ['eq', 'neq', 'gt', 'ngt', 'gte', 'ngte', 'lt', 'nlt', 'lte', 'nlte', 'in', 'nin'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Builds SQL conditions, collecting their parameters. */
export class WhereBuilder {
  private n = 0;
  readonly params: SqlParams = {};
  constructor(private readonly fields: ColumnMap) {}

  private bind(type: string, value: string | number | string[] | number[]): string {
    if (this.n >= MAX_CONDITIONS) throw badInput('where', `where holds more than ${MAX_CONDITIONS} conditions`);
    const name = `w${this.n++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }

  private scalar(field: string, kind: ColumnKind, v: unknown): string | number {
    const bad = () =>
      badInput(`where.${field}`, `where.${field}: ${kind === 'number' ? 'a number' : kind === 'date' ? 'an ISO 8601 date-time' : 'a string'} is expected`);
    if (kind === 'number') {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw bad();
      return v;
    }
    if (typeof v !== 'string' || v.length > 1000) throw bad();
    if (kind === 'date' && Number.isNaN(Date.parse(v))) throw bad();
    return kind === 'date' ? new Date(v).toISOString() : v;
  }

  /** One value placeholder of the field's type. */
  private value(field: string, kind: ColumnKind, v: unknown): string {
    const x = this.scalar(field, kind, v);
    if (kind === 'number') return this.bind('Float64', x);
    if (kind === 'date') return `parseDateTime64BestEffort(${this.bind('String', x)}, 3, 'UTC')`;
    return this.bind('String', x);
  }

  private condition(field: string, op: string, v: unknown): string {
    const { column, kind } = this.fields[field]!;
    const allowed = kind === 'string' ? STRING_OPS : COMPARABLE_OPS;
    if (!allowed.includes(op)) throw badInput(`where.${field}`, `where.${field}.${op} is not an operation on this field`);
    if (NEGATED[op]) return `NOT (${this.condition(field, NEGATED[op]!, v)})`;
    if (v === null && (op === 'eq' || op === 'neq') && kind === 'string') return `${column} ${op === 'eq' ? '=' : '!='} ''`;
    switch (op) {
      case 'eq':
        return `${column} = ${this.value(field, kind, v)}`;
      case 'neq':
        return `${column} != ${this.value(field, kind, v)}`;
      case 'contains':
        return `position(${column}, ${this.value(field, kind, v)}) > 0`;
      case 'startsWith':
        return `startsWith(${column}, ${this.value(field, kind, v)})`;
      case 'endsWith':
        return `endsWith(${column}, ${this.value(field, kind, v)})`;
      case 'in':
      case 'nin': {
        if (!Array.isArray(v)) throw badInput(`where.${field}`, `where.${field}.${op} must be a list`);
        if (v.length > MAX_IN) throw badInput(`where.${field}`, `where.${field}.${op} holds more than ${MAX_IN} values`);
        const values = v.map((x) => this.scalar(field, kind, x));
        const list =
          kind === 'number'
            ? this.bind('Array(Float64)', values as number[])
            : kind === 'date'
              ? `arrayMap(x -> parseDateTime64BestEffort(x, 3, 'UTC'), ${this.bind('Array(String)', values as string[])})`
              : this.bind('Array(String)', values as string[]);
        return `${op === 'nin' ? 'NOT ' : ''}has(${list}, ${column})`;
      }
      default:
        return `${column} ${COMPARE[op]} ${this.value(field, kind, v)}`;
    }
  }

  /** The where object as one SQL condition ('1' when it says nothing). */
  where(where: unknown, depth = 0): string {
    if (where === null || where === undefined) return '1';
    if (!isRecord(where)) throw badInput('where', 'where must be an object');
    if (depth > MAX_DEPTH) throw badInput('where', `where nests deeper than ${MAX_DEPTH}`);
    const parts: string[] = [];
    for (const [key, v] of Object.entries(where)) {
      if (v === undefined) continue;
      if (key === 'and' || key === 'or') {
        if (!Array.isArray(v)) throw badInput('where', `where.${key} must be a list`);
        if (!v.length) continue;
        parts.push(`(${v.map((w) => this.where(w, depth + 1)).join(key === 'and' ? ' AND ' : ' OR ')})`);
        continue;
      }
      if (!this.fields[key]) throw badInput(`where.${key}`, `where.${key}: no such field to filter on`);
      if (!isRecord(v)) throw badInput(`where.${key}`, `where.${key} must be an object of operations`);
      for (const [op, x] of Object.entries(v)) if (x !== undefined) parts.push(this.condition(key, op, x));
    }
    return parts.length ? parts.join(' AND ') : '1';
  }
}

/** ORDER BY terms for the order inputs, then the fallback (which keeps the order total). */
export function orderSql(order: unknown, fields: ColumnMap, fallback: string): string {
  if (order === null || order === undefined) return fallback;
  if (!Array.isArray(order)) throw badInput('order', 'order must be a list');
  const terms: string[] = [];
  for (const o of order) {
    if (!isRecord(o)) throw badInput('order', 'each order item must be an object');
    for (const [field, dir] of Object.entries(o)) {
      if (dir === undefined || dir === null) continue;
      const f = fields[field];
      if (!f) throw badInput(`order.${field}`, `order.${field}: no such field to sort on`);
      if (dir !== 'ASC' && dir !== 'DESC') throw badInput(`order.${field}`, `order.${field} must be ASC or DESC`);
      terms.push(`${f.column} ${dir}`);
    }
  }
  return [...terms, fallback].join(', ');
}
