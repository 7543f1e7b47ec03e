/**
 * HotChocolate-style `where` / `order` inputs translated to the documents port's Mongo-style
 * filter and sort. Shared by every list query: a subgraph declares which GraphQL fields map
 * to which stored paths, and gets filtering, sorting and limits for free.
 *
 *   where: { name: { startsWith: "Lobby" }, or: [{ isOnline: { eq: true } }, { tags: { some: { eq: "vip" } } }] }
 *   order: [{ name: ASC }, { pingData: { timestamp: DESC } }]
 */
import { AppError } from '../errors.js';
import type { Filter, Sort } from '../ports/documents.js';

export type FieldKind = 'string' | 'number' | 'boolean' | 'date' | 'stringList';

/** GraphQL field name -> stored path and kind, or a nested object's fields. */
export type FieldMap = {
  [field: string]:
    | { path: string; kind: FieldKind }
    | { nested: FieldMap }
    /** A derived field (e.g. isOnline from the last ping): builds its own clause; sorts on sortPath. */
    | { custom: (ops: Record<string, unknown>, name: string) => Filter; sortPath?: string };
};

/**
 * Fields of one kind, each stored under its own name (under `prefix.` when given):
 * `storedFields('string', ['id', 'name'])` is `{ id: { path: 'id', kind: 'string' }, name: ... }`.
 */
export function storedFields(kind: FieldKind, names: readonly string[], prefix?: string): FieldMap {
  return Object.fromEntries(names.map((name) => [name, { path: prefix ? `${prefix}.${name}` : name, kind }]));
}

/** The createdOn / updatedOn fields of documents stamped with createdAt / updatedAt. */
export const STAMP_FIELDS: FieldMap = {
  createdOn: { path: 'createdAt', kind: 'date' },
  updatedOn: { path: 'updatedAt', kind: 'date' },
};

/**
 * A derived boolean field (isOnline, isActive): takes only `eq` or `neq` with a boolean, and builds
 * the clause of the value asked for (neq true = eq false); no operator, no clause.
 */
export function derivedBooleanField(clause: (value: boolean) => Filter, sortPath?: string): FieldMap[string] {
  return {
    custom: (ops, name) => {
      const keys = Object.keys(ops).filter((k) => ops[k] !== undefined && ops[k] !== null);
      if (keys.length === 0) return {};
      if (keys.length !== 1 || !['eq', 'neq'].includes(keys[0]!) || typeof ops[keys[0]!] !== 'boolean') {
        throw new AppError('BAD_USER_INPUT', `where.${name} takes eq or neq with a boolean`, { field: `where.${name}` });
      }
      const value = ops[keys[0]!] as boolean;
      return clause(keys[0] === 'eq' ? value : !value);
    },
    ...(sortPath !== undefined ? { sortPath } : {}),
  };
}

/**
 * An enum field whose GraphQL values (QUEUED, ANY) are stored in lower case ('queued', 'any'), or
 * derived from several stored fields: takes eq, neq, in and nin with the enum's values and builds
 * the clause of the stored values asked for (`clause`; neq / nin ask for the other values).
 * `stored` lists every stored value; sorts on sortPath when given.
 */
export function lowerCaseEnumField(stored: readonly string[], clause: (values: string[]) => Filter, sortPath?: string): FieldMap[string] {
  return {
    custom: (ops, name) => {
      const field = { field: `where.${name}` };
      const value = (v: unknown): string => {
        const x = typeof v === 'string' ? v.toLowerCase() : '';
        if (!stored.includes(x)) throw new AppError('BAD_USER_INPUT', `where.${name} takes ${stored.map((s) => s.toUpperCase()).join(', ')}`, field);
        return x;
      };
      const parts: Filter[] = [];
      for (const [op, v] of Object.entries(ops)) {
        if (v === undefined) continue;
        if (!['eq', 'neq', 'in', 'nin'].includes(op)) throw new AppError('BAD_USER_INPUT', `unknown operator '${op}' for where.${name}`, field);
        const asked = op === 'eq' || op === 'neq' ? [value(v)] : list(name, op, v).map(value);
        parts.push(clause(op === 'eq' || op === 'in' ? asked : stored.filter((s) => !asked.includes(s))));
      }
      return parts.length === 0 ? {} : parts.length === 1 ? parts[0]! : { $and: parts };
    },
    ...(sortPath !== undefined ? { sortPath } : {}),
  };
}

const STRING_OPS = ['eq', 'neq', 'contains', 'ncontains', 'startsWith', 'nstartsWith', 'endsWith', 'nendsWith', 'in', 'nin'];
const COMPARABLE_OPS = ['eq', 'neq', 'gt', 'ngt', 'gte', 'ngte', 'lt', 'nlt', 'lte', 'nlte', 'in', 'nin'];
const BOOLEAN_OPS = ['eq', 'neq'];
const LIST_OPS = ['some', 'none', 'any'];

const OPS_BY_KIND: Record<FieldKind, string[]> = {
  string: STRING_OPS,
  number: COMPARABLE_OPS,
  date: COMPARABLE_OPS,
  boolean: BOOLEAN_OPS,
  stringList: LIST_OPS,
};

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MAX_DEPTH = 8;
const MAX_IN = 1000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(field: string, op: string, v: unknown): string {
  if (typeof v !== 'string') throw new AppError('BAD_USER_INPUT', `where.${field}.${op} must be a string`, { field: `where.${field}` });
  return v;
}

function list(field: string, op: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new AppError('BAD_USER_INPUT', `where.${field}.${op} must be a list`, { field: `where.${field}` });
  if (v.length > MAX_IN) throw new AppError('BAD_USER_INPUT', `where.${field}.${op} holds more than ${MAX_IN} values`, { field: `where.${field}` });
  return v;
}

/** One operation object ({ contains: "x", neq: "y" }) on one scalar path: one condition per operator. */
/** Stored instants are ISO strings with milliseconds; inputs are normalised so text order is time order. */
function instant(field: string, v: unknown): unknown {
  if (v === null) return null;
  if (Array.isArray(v)) return v.map((x) => instant(field, x));
  const d = typeof v === 'string' && v.length <= 40 ? new Date(v) : null;
  if (!d || Number.isNaN(d.getTime())) throw new AppError('BAD_USER_INPUT', `where.${field} takes ISO 8601 timestamps`, { field: `where.${field}` });
  return d.toISOString();
}

export function scalarCondition(field: string, kind: FieldKind, ops: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [op, raw] of Object.entries(ops)) {
    if (raw === undefined) continue;
    const value = kind === 'date' && OPS_BY_KIND.date.includes(op) ? instant(field, raw) : raw;
    if (!OPS_BY_KIND[kind].includes(op)) {
      throw new AppError('BAD_USER_INPUT', `unknown operator '${op}' for where.${field}`, { field: `where.${field}` });
    }
    switch (op) {
      case 'eq':
        out.push({ $eq: value });
        break;
      case 'neq':
        out.push({ $ne: value });
        break;
      case 'in':
        out.push({ $in: list(field, op, value) });
        break;
      case 'nin':
        out.push({ $nin: list(field, op, value) });
        break;
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        out.push({ [`$${op}`]: value });
        break;
      case 'ngt':
      case 'ngte':
      case 'nlt':
      case 'nlte':
        out.push({ $not: { [`$${op.slice(1)}`]: value } });
        break;
      case 'contains':
        out.push({ $regex: escapeRegex(str(field, op, value)) });
        break;
      case 'ncontains':
        out.push({ $not: { $regex: escapeRegex(str(field, op, value)) } });
        break;
      case 'startsWith':
        out.push({ $regex: `^${escapeRegex(str(field, op, value))}` });
        break;
      case 'nstartsWith':
        out.push({ $not: { $regex: `^${escapeRegex(str(field, op, value))}` } });
        break;
      case 'endsWith':
        out.push({ $regex: `${escapeRegex(str(field, op, value))}$` });
        break;
      case 'nendsWith':
        out.push({ $not: { $regex: `${escapeRegex(str(field, op, value))}$` } });
        break;
    }
  }
  return out;
}

function listCondition(field: string, path: string, ops: Record<string, unknown>): Filter[] {
  const out: Filter[] = [];
  for (const [op, value] of Object.entries(ops)) {
    if (value === undefined) continue;
    if (!LIST_OPS.includes(op)) throw new AppError('BAD_USER_INPUT', `unknown operator '${op}' for where.${field}`, { field: `where.${field}` });
    if (op === 'any') {
      out.push({ [`${path}.0`]: { $exists: value === true } });
      continue;
    }
    if (!isRecord(value)) throw new AppError('BAD_USER_INPUT', `where.${field}.${op} must be an object`, { field: `where.${field}` });
    const ops2 = Object.entries(value).filter(([, v]) => v !== undefined);
    if (ops2.length !== 1) {
      throw new AppError('BAD_USER_INPUT', `where.${field}.${op} takes exactly one operator`, { field: `where.${field}` });
    }
    // $elemMatch over an array of scalars takes an operator expression directly.
    const match = { $elemMatch: scalarCondition(`${field}.${op}`, 'string', value)[0] };
    out.push(op === 'some' ? { [path]: match } : { [path]: { $not: match } });
  }
  return out;
}

function translate(where: Record<string, unknown>, fields: FieldMap, prefix: string, depth: number): Filter[] {
  if (depth > MAX_DEPTH) throw new AppError('BAD_USER_INPUT', 'where is nested too deeply', { field: 'where' });
  const clauses: Filter[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined || value === null) continue;
    if (key === 'and' || key === 'or') {
      const parts = list(key, key, value).map((w) => {
        if (!isRecord(w)) throw new AppError('BAD_USER_INPUT', `where.${key} entries must be objects`, { field: `where.${key}` });
        const sub = translate(w, fields, prefix, depth + 1);
        return sub.length === 1 ? sub[0]! : { $and: sub };
      });
      if (parts.length) clauses.push({ [`$${key}`]: parts });
      continue;
    }
    const def = fields[key];
    const name = prefix ? `${prefix}.${key}` : key;
    if (!def) throw new AppError('BAD_USER_INPUT', `where.${name} is not a filterable field`, { field: `where.${name}` });
    if (!isRecord(value)) throw new AppError('BAD_USER_INPUT', `where.${name} must be an object of operators`, { field: `where.${name}` });
    if ('nested' in def) {
      clauses.push(...translate(value, def.nested, name, depth + 1));
    } else if ('custom' in def) {
      const clause = def.custom(value, name);
      if (Object.keys(clause).length) clauses.push(clause);
    } else if (def.kind === 'stringList') {
      clauses.push(...listCondition(name, def.path, value));
    } else {
      // Operators on one path may clash ($not twice), so each becomes its own clause.
      for (const cond of scalarCondition(name, def.kind, value)) clauses.push({ [def.path]: cond });
    }
  }
  return clauses;
}

/** Translates a `where` input to a documents-port filter ({} when absent). */
export function whereToFilter(where: unknown, fields: FieldMap): Filter {
  if (where === undefined || where === null) return {};
  if (!isRecord(where)) throw new AppError('BAD_USER_INPUT', 'where must be an object', { field: 'where' });
  const clauses = translate(where, fields, '', 0);
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? clauses[0]! : { $and: clauses };
}

function sortPaths(entry: Record<string, unknown>, fields: FieldMap, prefix: string, out: Sort): void {
  for (const [key, dir] of Object.entries(entry)) {
    if (dir === undefined || dir === null) continue;
    const def = fields[key];
    const name = prefix ? `${prefix}.${key}` : key;
    if (!def) throw new AppError('BAD_USER_INPUT', `order.${name} is not a sortable field`, { field: `order.${name}` });
    if ('nested' in def) {
      if (!isRecord(dir)) throw new AppError('BAD_USER_INPUT', `order.${name} must be an object`, { field: `order.${name}` });
      sortPaths(dir, def.nested, name, out);
    } else if (dir === 'ASC' || dir === 'DESC') {
      if ('custom' in def) {
        if (!def.sortPath) throw new AppError('BAD_USER_INPUT', `order.${name} is not sortable`, { field: `order.${name}` });
        out[def.sortPath] = dir === 'ASC' ? 1 : -1;
        continue;
      }
      if (def.kind === 'stringList') throw new AppError('BAD_USER_INPUT', `order.${name} is not sortable`, { field: `order.${name}` });
      out[def.path] = dir === 'ASC' ? 1 : -1;
    } else {
      throw new AppError('BAD_USER_INPUT', `order.${name} must be ASC or DESC`, { field: `order.${name}` });
    }
  }
}

/** Translates an `order` list to a documents-port sort, in the given priority. */
export function orderToSort(order: unknown, fields: FieldMap, fallback: Sort = {}): Sort {
  if (order === undefined || order === null) return fallback;
  const entries = Array.isArray(order) ? order : [order];
  const sort: Sort = {};
  for (const e of entries) {
    if (!isRecord(e)) throw new AppError('BAD_USER_INPUT', 'order entries must be objects', { field: 'order' });
    sortPaths(e, fields, '', sort);
  }
  // A stable tiebreaker keeps pages consistent.
  for (const [k, v] of Object.entries(fallback)) if (!(k in sort)) sort[k] = v;
  return sort;
}

export interface LimitPolicy {
  default: number;
  max: number;
}
export const DEFAULT_LIST_LIMIT: LimitPolicy = { default: 100, max: 1000 };

/** Applies the default and refuses values above the maximum (never silently clamps). */
export function resolveLimit(limit: unknown, policy: LimitPolicy = DEFAULT_LIST_LIMIT, field = 'limit'): number {
  if (limit === undefined || limit === null) return policy.default;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) {
    throw new AppError('BAD_USER_INPUT', `${field} must be a non-negative integer`, { field });
  }
  if (limit > policy.max) throw new AppError('BAD_USER_INPUT', `${field} must be at most ${policy.max}`, { field });
  return limit;
}

/** The arguments every list query shares. */
export interface ListArgs {
  limit?: number | null;
  /** Items to skip (REST page * take). */
  offset?: number | null;
  where?: unknown;
  order?: unknown;
}

const OFFSET_LIMIT: LimitPolicy = { default: 0, max: 10_000_000 };

/**
 * One list query's store filter: `anyOf` argument filters (each list matches any of its values;
 * empty or absent lists are ignored), extra `clauses`, AND `where`.
 */
export function listFilter(
  where: unknown,
  fields: FieldMap,
  opts: { anyOf?: Record<string, readonly string[] | null | undefined>; clauses?: Filter[] } = {},
): Filter {
  const clauses: Filter[] = [];
  for (const [path, values] of Object.entries(opts.anyOf ?? {})) if (values && values.length) clauses.push({ [path]: { $in: [...values] } });
  clauses.push(...(opts.clauses ?? []));
  const w = whereToFilter(where, fields);
  if (Object.keys(w).length) clauses.push(w);
  return clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0]! : { $and: clauses };
}

/**
 * One list query's store request: listFilter's filter; sorted by `order` then `fallbackSort`
 * (default name, id); `offset` skipped; cut to `limit`.
 */
export function listQuery(
  args: ListArgs,
  fields: FieldMap,
  opts: { anyOf?: Record<string, readonly string[] | null | undefined>; clauses?: Filter[]; fallbackSort?: Sort } = {},
): { filter: Filter; options: { sort: Sort; limit: number; skip?: number } } {
  const filter = listFilter(args.where, fields, opts);
  const limit = resolveLimit(args.limit);
  const skip = resolveLimit(args.offset, OFFSET_LIMIT, 'offset');
  const sort = orderToSort(args.order, fields, opts.fallbackSort ?? { name: 1, id: 1 });
  return { filter, options: { sort, limit, ...(skip ? { skip } : {}) } };
}
