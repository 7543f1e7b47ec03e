/**
 * REST operations described as data. The common shapes (list with take/page and filters, get by
 * id, create, update/put, JSON Patch, delete) are one call each; the builders own the paging,
 * the body -> input mapping, the payload/error mapping, the reference's status codes and the
 * `accepts` list the startup check compares with rest.yaml.
 *
 *   export const listDevices = listOp({ root: 'device', params: { group_id: 'groupId', id: { to: 'id', one: true } }, toRest: toRestDevice });
 */
import { camelPatch, notFound, pageWindow, payloadAt, snakeKeys, type FieldNames } from '@pylon/kit';
import { isRecord, one, recordAt, recordsAt, type GqlRecord } from './shape.js';
import type { RestInput, RestOperation, RestSuccess } from './types.js';

/** GraphQL record -> REST body. */
export type ToRest = (record: GqlRecord, input: RestInput) => unknown;

/** Default record conversion: every key in snake_case. */
export const snakeRecord: ToRest = (r) => snakeKeys(r);

/**
 * How one REST parameter or body property becomes a variable/input field: a GraphQL name, or
 * `{ to, one?, map? }` (`one`: a single value sent as a one-element list; `map`: value conversion).
 * `false` reads nothing: the property is accepted and deliberately dropped (say why where it is declared).
 */
export type FieldSpec = string | false | { to: string; one?: boolean; map?: (value: unknown, input: RestInput) => unknown };

export type FieldMap = Readonly<Record<string, FieldSpec>>;

/** Values of `source` under their GraphQL names (only the properties present). */
export function mapFields(source: unknown, fields: FieldMap, input: RestInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(source)) return out;
  for (const [name, spec] of Object.entries(fields)) {
    if (spec === false || !Object.hasOwn(source, name) || source[name] === undefined) continue;
    const v = source[name];
    if (typeof spec === 'string') out[spec] = v;
    else out[spec.to] = spec.map ? spec.map(v, input) : spec.one ? one(v) : v;
  }
  return out;
}

/** GraphQL field -> REST name, for error `field`s (the first REST name wins: `timezone` over the reference's `timeZone`). */
function inverse(fields: FieldMap, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(fields)) {
    if (spec === false) continue;
    const to = typeof spec === 'string' ? spec : spec.to;
    out[`${prefix}${to}`] ??= name;
  }
  return out;
}

type Paging = 'take/page' | { take: string; page: string; defaultTake?: number };

export interface ListSpec {
  /** Root field of the persisted query (a list). */
  root: string;
  /** Query parameters other than paging. */
  params?: FieldMap;
  /** take/page (REST default) -> limit/offset; `none` when the operation does not page. */
  paging?: Paging | 'none';
  /** Other names for parameters (alias -> canonical, e.g. the reference's `Take` -> `take`); an alias sent wins over the canonical name's document default. */
  aliases?: Readonly<Record<string, string>>;
  /** Fixed variables. */
  fixed?: Record<string, unknown>;
  toRest?: ToRest;
  /**
   * The response key of the persisted document's count selection: the same root under an alias,
   * with the same filters, no offset and `limit: 1000` (COUNT_MAX), selecting only the key, e.g.
   * `total: device(id: $id, ..., limit: 1000) { id }`. Its length is the list's total on every
   * page (`X-Total-Count`) while it stays below COUNT_MAX; at COUNT_MAX the total is known only on
   * the last page. Without it, only the last page carries the total. The price: every page reads
   * the ids of the whole filtered list (up to 1000) in the subgraph, linear in its length (about
   * 11 ms more per GET /devices page at 500 devices on the 2-core dev machine, under 1 ms at the
   * demo's eight); a count field per root in the subgraphs would make it constant.
   */
  count?: string;
}

/** The `limit` of a count selection (kit DEFAULT_LIST_LIMIT.max): a selection this long may be cut short. */
export const COUNT_MAX = 1000;

/** The list's total from the count selection, when it is complete (shorter than COUNT_MAX). */
function countedTotal(data: Record<string, unknown>, key: string | undefined): number | undefined {
  if (!key) return undefined;
  const counted = data[key];
  return Array.isArray(counted) && counted.length < COUNT_MAX ? counted.length : undefined;
}

/** The query with aliased parameters under their canonical names. */
function canonical(query: Record<string, unknown>, aliases: Readonly<Record<string, string>> | undefined): Record<string, unknown> {
  if (!aliases) return query;
  const out = { ...query };
  for (const [alias, name] of Object.entries(aliases)) if (out[alias] !== undefined) out[name] = out[alias];
  return out;
}

/** The largest `limit` list queries take (kit DEFAULT_LIST_LIMIT.max): no look-ahead item beyond it. */
const LOOKAHEAD_MAX = 1000;

export function listOp(spec: ListSpec): RestOperation {
  const paging = spec.paging ?? 'take/page';
  const names = paging === 'none' ? undefined : paging === 'take/page' ? { take: 'take', page: 'page' } : paging;
  const params = spec.params ?? {};
  const toRest = spec.toRest ?? snakeRecord;
  const windowOf = (query: Record<string, unknown>): { limit?: number | undefined; offset?: number | undefined } =>
    names
      ? pageWindow(query[names.take], query[names.page], {
          names,
          ...(typeof paging === 'object' && paging.defaultTake ? { defaultTake: paging.defaultTake } : {}),
        })
      : {};
  return {
    variables(raw) {
      const input = { ...raw, query: canonical(raw.query, spec.aliases) };
      const window = windowOf(input.query);
      // One item beyond the page tells whether another follows (the Link header's rel="next");
      // at the largest page size the store allows, a full page is taken to mean there may be more.
      const limit = window.limit !== undefined && window.limit > 0 && window.limit < LOOKAHEAD_MAX ? window.limit + 1 : window.limit;
      return { ...spec.fixed, ...mapFields(input.query, params, input), ...window, ...(limit !== undefined ? { limit } : {}) };
    },
    respond: (data, raw) => {
      const input = { ...raw, query: canonical(raw.query, spec.aliases) };
      const records = recordsAt(data, spec.root);
      const window = windowOf(input.query);
      if (!names || window.limit === undefined || window.limit === 0) return { body: records.map((r) => toRest(r, input)) };
      const take = window.limit;
      const pageIndex = take > 0 ? Math.floor((window.offset ?? 0) / take) : 0;
      const shown = records.slice(0, take);
      const more = records.length > take || (take >= LOOKAHEAD_MAX && records.length === take);
      const total = countedTotal(data, spec.count) ?? (more ? undefined : (window.offset ?? 0) + shown.length);
      return {
        body: shown.map((r) => toRest(r, input)),
        page: { names, take, page: pageIndex, more, ...(total !== undefined ? { total } : {}) },
      };
    },
    fieldNames: { ...inverse(params), ...(names ? { limit: names.take, offset: names.page } : {}) },
    accepts: { query: [...Object.keys(params), ...(names ? [names.take, names.page] : []), ...Object.keys(spec.aliases ?? {})] },
  };
}

export interface GetSpec {
  /** Root field: a list filtered by id (first item or 404) or a single nullable object. */
  root: string;
  /** What the 404 message names ('device'). */
  what: string;
  /** Path parameter and the variable it becomes (default `id` -> `id`). */
  param?: string;
  variable?: string;
  /** Further query parameters. */
  query?: FieldMap;
  toRest?: ToRest;
}

export function getOp(spec: GetSpec): RestOperation {
  const param = spec.param ?? 'id';
  const toRest = spec.toRest ?? snakeRecord;
  return {
    variables: (input) => ({ [spec.variable ?? 'id']: input.params[param], ...mapFields(input.query, spec.query ?? {}, input) }),
    respond(data, input) {
      const v = data[spec.root];
      // Unknown and foreign ids look the same: reads only see the caller's account.
      const record = Array.isArray(v) ? v[0] : v;
      if (!isRecord(record)) throw notFound(spec.what, String(input.params[param]));
      return { body: toRest(record, input) };
    },
    fieldNames: { [spec.variable ?? 'id']: param, ...inverse(spec.query ?? {}) },
    accepts: { path: [param], query: Object.keys(spec.query ?? {}) },
  };
}

export interface BodySpec {
  /** REST body property -> GraphQL input field. */
  fields: FieldMap;
  /** PUT replaces: the input fields every request starts from (what the body leaves out is reset). */
  resetTo?: Record<string, unknown>;
  /** Last say over the mapped input (cross-field rules). */
  finish?: (input: Record<string, unknown>, rest: RestInput) => Record<string, unknown>;
}

function bodyInput(body: BodySpec, input: RestInput): Record<string, unknown> {
  const mapped = { ...body.resetTo, ...mapFields(input.body, body.fields, input) };
  return body.finish ? body.finish(mapped, input) : mapped;
}

export interface WriteSpec {
  /** Mutation root field (its payload has success/error/errorCode/errorField). */
  root: string;
  /** The payload field holding the written record. */
  record: string;
  body: BodySpec;
  /** Query parameters that become input fields too (a body property of the same input field wins). */
  query?: FieldMap;
  /** Path parameter -> variable (update: default `id` -> `id`; create: none). */
  param?: string | false;
  variable?: string;
  /** Success status; 204 answers no body. Create defaults to 201, update to 200. */
  status?: number;
  toRest?: ToRest;
  /** GraphQL argument -> REST name for error fields, beyond the body's own. */
  fieldNames?: FieldNames;
  /** The mutation takes the mapped fields as its own arguments (`claimDevice(code, name)`), not as one `input`. */
  flat?: boolean;
}

function writeOp(spec: WriteSpec, defaults: { param: string | false; status: number }): RestOperation {
  const param = spec.param ?? defaults.param;
  const status = spec.status ?? defaults.status;
  const toRest = spec.toRest ?? snakeRecord;
  const fieldNames = {
    ...inverse(spec.query ?? {}),
    ...inverse(spec.query ?? {}, 'input.'),
    ...inverse(spec.body.fields),
    ...inverse(spec.body.fields, 'input.'),
    input: 'body',
    ...(param ? { [spec.variable ?? 'id']: param } : {}),
    ...spec.fieldNames,
  };
  return {
    variables: (input) => {
      const fields = { ...mapFields(input.query, spec.query ?? {}, input), ...bodyInput(spec.body, input) };
      return { ...(param ? { [spec.variable ?? 'id']: input.params[param] } : {}), ...(spec.flat ? fields : { input: fields }) };
    },
    respond(data, input): RestSuccess {
      const record = recordAt(payloadAt(data, spec.root, fieldNames), spec.record);
      return status === 204 ? { status, body: null } : { status, body: toRest(record, input) };
    },
    fieldNames,
    accepts: { ...(param ? { path: [param] } : {}), ...(spec.query ? { query: Object.keys(spec.query) } : {}), body: Object.keys(spec.body.fields) },
  };
}

export const createOp = (spec: WriteSpec) => writeOp(spec, { param: false, status: 201 });
export const updateOp = (spec: WriteSpec) => writeOp(spec, { param: 'id', status: 200 });

export interface PatchSpec {
  root: string;
  record: string;
  /** REST path segment -> GraphQL field, where camelCasing the snake_case name does not give it (`timeZone` -> `timezone`). */
  renames?: Readonly<Record<string, string>>;
  /** Operation values in REST form -> GraphQL form (e.g. tags "a,b" -> ["a","b"]); `path` is the GraphQL path. */
  value?: (path: string, value: unknown) => unknown;
  param?: string;
  status?: number;
  toRest?: ToRest;
}

/** PATCH with a JSON Patch array whose paths name REST properties. */
export function patchOp(spec: PatchSpec): RestOperation {
  const param = spec.param ?? 'id';
  const toRest = spec.toRest ?? snakeRecord;
  const fieldNames = { id: param };
  return {
    variables: ({ params, body }) => {
      let operations = camelPatch(body, spec.renames);
      if (spec.value && Array.isArray(operations)) {
        operations = operations.map((o: unknown) =>
          isRecord(o) && 'value' in o && typeof o.path === 'string' ? { ...o, value: spec.value!(o.path, o.value) } : o,
        );
      }
      return { id: params[param], operations };
    },
    respond(data, input) {
      const record = recordAt(payloadAt(data, spec.root, fieldNames), spec.record);
      return spec.status === 204 ? { status: 204, body: null } : { status: spec.status ?? 200, body: toRest(record, input) };
    },
    fieldNames,
    accepts: { path: [param], body: 'whole' },
  };
}

/** DELETE by id: 204 with no body. */
export function deleteOp(spec: { root: string; param?: string; variable?: string }): RestOperation {
  const param = spec.param ?? 'id';
  return {
    variables: ({ params }) => ({ [spec.variable ?? 'id']: params[param] }),
    respond(data) {
      payloadAt(data, spec.root, { [spec.variable ?? 'id']: param });
      return { status: 204, body: null };
    },
    fieldNames: { [spec.variable ?? 'id']: param },
    accepts: { path: [param] },
  };
}

/** Checks a GqlRecord without a payload (helper for custom operations). */
export { payloadAt, recordAt, recordsAt };
