/**
 * HotChocolate-style `where` / `order` inputs (the spec's filtering and sorting, as the documents
 * subgraphs take them through kit's filters.ts) translated to ClickHouse SQL for the analytics
 * queries. The grammar, its limits and its error messages are domain/list-filter.ts's (the same
 * the in-memory series filter uses); this renders the parsed conditions. A query declares which
 * GraphQL fields map to which columns (or expressions over its output columns); every value is
 * bound as a parameter (`{w0:String}` ...), never spliced; columns and directions come from the
 * declaration.
 *
 *   where: { eventName: { startsWith: "menu" }, or: [{ deviceId: { eq: "d1" } }, { timestamp: { gte: "2026-01-01" } }] }
 *   order: [{ timestamp: DESC }, { id: ASC }]
 */
import type { SqlParams } from '@pylon/kit';
import { NEGATED, parseList, parseOrder, parseWhere, type Condition, type FieldKind, type Leaf, type ListArgs, type SortTerm } from '../domain/list-filter.js';

export type ColumnKind = FieldKind;
export type ColumnMap = Readonly<Record<string, { column: string; kind: ColumnKind }>>;

/** Fields of one kind, each over the column named after it in snake_case (deviceId: device_id). */
export function namedColumns(kind: ColumnKind, names: readonly string[]): ColumnMap {
  return Object.fromEntries(names.map((name) => [name, { column: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), kind }]));
}

/** Number fields, each over its column expression (integers as toFloat64(...): comparable with the bound numbers). */
export function numberColumns(columns: Readonly<Record<string, string>>): ColumnMap {
  return Object.fromEntries(Object.entries(columns).map(([name, column]) => [name, { column, kind: 'number' }]));
}

/** A statistic's file fields over its output columns file_id and name. */
export const FILE_FIELDS: ColumnMap = { ...namedColumns('string', ['fileId']), fileName: { column: 'name', kind: 'string' } };

/** The id, timestamp and device fields every telemetry row has. */
export const TELEMETRY_FIELDS: ColumnMap = { ...namedColumns('string', ['id', 'deviceId']), timestamp: { column: 'timestamp', kind: 'date' } };

const COMPARE: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Builds SQL conditions, collecting their parameters. */
export class WhereBuilder {
  private n = 0;
  readonly params: SqlParams = {};
  constructor(private readonly fields: ColumnMap) {}

  private bind(type: string, value: string | number | string[] | number[]): string {
    const name = `w${this.n++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }

  /** One value placeholder of the field's type. */
  private value(kind: ColumnKind, x: string | number): string {
    if (kind === 'number') return this.bind('Float64', x);
    if (kind === 'date') return `parseDateTime64BestEffort(${this.bind('String', x)}, 3, 'UTC')`;
    return this.bind('String', x);
  }

  private leaf(l: Leaf): string {
    const { column } = this.fields[l.field]!;
    if (NEGATED[l.op]) return `NOT (${this.leaf({ ...l, op: NEGATED[l.op]! })})`;
    if (l.value === null) return `${column} ${l.op === 'eq' ? '=' : '!='} ''`;
    if (Array.isArray(l.value)) {
      const list =
        l.kind === 'number'
          ? this.bind('Array(Float64)', l.value as number[])
          : l.kind === 'date'
            ? `arrayMap(x -> parseDateTime64BestEffort(x, 3, 'UTC'), ${this.bind('Array(String)', l.value as string[])})`
            : this.bind('Array(String)', l.value as string[]);
      return `${l.op === 'nin' ? 'NOT ' : ''}has(${list}, ${column})`;
    }
    const x = this.value(l.kind, l.value);
    switch (l.op) {
      case 'eq':
        return `${column} = ${x}`;
      case 'neq':
        return `${column} != ${x}`;
      case 'contains':
        return `position(${column}, ${x}) > 0`;
      case 'startsWith':
        return `startsWith(${column}, ${x})`;
      case 'endsWith':
        return `endsWith(${column}, ${x})`;
      default:
        return `${column} ${COMPARE[l.op]} ${x}`;
    }
  }

  private render(c: Condition): string {
    if ('and' in c) return c.and.length ? `(${c.and.map((x) => this.render(x)).join(' AND ')})` : '1';
    if ('or' in c) return c.or.length ? `(${c.or.map((x) => this.render(x)).join(' OR ')})` : '1';
    return this.leaf(c);
  }

  /** A parsed condition as SQL ('1' when there is none). */
  condition(c: Condition | null): string {
    return c ? this.render(c) : '1';
  }

  /** The where object as one SQL condition ('1' when it says nothing). */
  where(where: unknown): string {
    return this.condition(parseWhere(where, this.fields));
  }
}

/** ORDER BY terms for the order inputs, then the fallback (which keeps the order total). */
export function orderSql(order: unknown, fields: ColumnMap, fallback: string): string {
  return termsSql(parseOrder(order, fields), fields, fallback);
}

/** ORDER BY terms for parsed sort terms, then the fallback. */
function termsSql(terms: readonly SortTerm[], fields: ColumnMap, fallback: string): string {
  return [...terms.map((t) => `${fields[t.field]!.column} ${t.dir}`), fallback].join(', ');
}

/**
 * `inner` (an aggregate's SELECT, without ORDER BY and LIMIT) ordered by `defaultOrder` and cut at
 * `limit`; with `where` or `order`, its output filtered and sorted first (a subquery: the limit comes
 * after the filter). `fields` map to `inner`'s output columns. Without either (or with ones that say
 * nothing: `where: {}`, `order: []`) the text is the aggregate's own, so the default path does no more work than before.
 */
export function listSql(inner: string, fields: ColumnMap, list: ListArgs, defaultOrder: string, limit: string): { sql: string; params: SqlParams } {
  const parsed = parseList(list, fields);
  if (!parsed) return { sql: `${inner}\nORDER BY ${defaultOrder}\n${limit}`, params: {} };
  const filter = new WhereBuilder(fields);
  const condition = filter.condition(parsed.condition);
  return {
    sql: `SELECT * FROM (\n${inner}\n)\nWHERE ${condition}\nORDER BY ${termsSql(parsed.terms, fields, defaultOrder)}\n${limit}`,
    params: filter.params,
  };
}
