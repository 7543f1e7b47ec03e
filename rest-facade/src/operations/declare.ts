/**
 * REST operations described as data. The common shapes (list with take/page and filters, get by
 * id, create, update/put, JSON Patch, delete) are one call each; the builders own the paging,
 * the body -> input mapping, the payload/error mapping, the reference's status codes and the
 * `accepts` list the startup check (and `npm test`) compares with rest.yaml.
 *
 *   export const listDevices = listOp('listDevices', { root: 'device', params: { group_id: 'groupId' }, toRest: toRestDevice });
 *
 * Given its operationId first, a builder is typed by the persisted document of that name
 * (kit's generated RestOperationTypes): `root` must be a root field of its answer, `record` a field
 * of the payload, and `toRest` receives the document's own record type and must return what
 * rest.yaml answers (@pylon/client's rest-api.generated.ts), so a field renamed in a subgraph's SDL (and its
 * documents) fails `npm run typecheck` where a mapper reads it. The older form without the
 * operationId (`listOp({ root, ... })`) still works, untyped; the registry then keys it by its
 * export name. Every spec may carry the operation's GraphQL document (`document: gql\`...\``); a
 * create/update/patch/delete declaration without one has it derived from its mutation (`root`,
 * `record`) by `npm run codegen`, which writes either into the REST manifest (schema/operations/rest.manifest.json).
 */
import { AppError, camelPatch, notFound, pageWindow, payloadAt, snakeKeys, type FieldNames, type JsonObject } from '@pylon/kit';
import { isRecord, one, recordAt, recordsAt, type GqlRecord } from './shape.js';
import type {
  DataOf,
  ItemOf,
  OperationId,
  RequestParams,
  RestBodyOf,
  RestInput,
  RestItemOf,
  RestOperation,
  RootOf,
  SomeVariablesOf,
  VariablesOf,
} from './types.js';

/** The record type of a payload field: `createDevice { device }` -> the device. */
type PayloadRecord<N extends OperationId, R extends RootOf<N>, K extends PayloadField<N, R>> = NonNullable<NonNullable<DataOf<N>[R]>[K]>;
type PayloadField<N extends OperationId, R extends RootOf<N>> = keyof NonNullable<DataOf<N>[R]> & string;

/** Names the operation (for the registry) when its builder was given its operationId; a document text written in the spec wins over a derived one. */
function named<O extends RestOperation<never>>(operationId: string | undefined, op: O, spec: { document?: string }): O {
  return { ...op, ...(operationId ? { operationId } : {}), ...(spec.document !== undefined ? { document: spec.document } : {}) };
}

/** Every builder's spec may carry the operation's GraphQL document (`gql\`...\``); mutation builders derive it otherwise. */
interface WithDocument {
  document?: string;
}

/** What a builder given an operationId answers: the operation typed by that document. */
type Typed<N extends OperationId> = RestOperation<DataOf<N>, SomeVariablesOf<N>>;

/**
 * A builder's two forms: its operationId first (`Form`: the spec typed by that document) or the
 * spec `S` alone (untyped; the registry keys it by its export name).
 */
type Builder<S, Form> = Form & ((spec: S) => RestOperation);

function builder<S extends WithDocument, Form>(build: (spec: S) => RestOperation): Builder<S, Form> {
  return ((idOrSpec: string | S, typed?: unknown) => {
    const [operationId, spec] = typeof idOrSpec === 'string' ? [idOrSpec, typed as S] : [undefined, idOrSpec];
    return named(operationId, build(spec), spec);
  }) as Builder<S, Form>;
}

/**
 * `V` where it names only variables of N's document; a name the document does not declare becomes a
 * property of a type no value has, so the typecheck names it. (A callback's returned object literal
 * gets no excess-property check of its own, so `variables: () => ({ endpointID })` would pass
 * against SomeVariablesOf alone.)
 */
type OnlyVariablesOf<N extends OperationId, V> = V & { [K in Exclude<keyof V, keyof VariablesOf<N>>]: `'${K & string}' is not a variable of ${N}` };

/**
 * A hand-written operation typed by its persisted document: `respond` reads the document's answer,
 * `variables` (and `batches`) may name only the document's variables.
 */
export function restOp<N extends OperationId, D = DataOf<N>, V extends SomeVariablesOf<N> = SomeVariablesOf<N>>(
  operationId: N,
  op: Omit<RestOperation<D>, 'operationId' | 'variables' | 'batches'> & {
    variables(input: RestInput): OnlyVariablesOf<N, V>;
    batches?(input: RestInput): OnlyVariablesOf<N, V>[] | undefined;
  },
): RestOperation<D, SomeVariablesOf<N>> & { operationId: N } {
  return { ...op, operationId } as RestOperation<D, SomeVariablesOf<N>> & { operationId: N };
}

/** GraphQL record -> REST body. */
export type ToRest = (record: GqlRecord, input: RestInput) => unknown;

/** Default record conversion: every key in snake_case. */
export const snakeRecord: ToRest = (r) => snakeKeys(r);

/**
 * How one REST parameter or body property becomes a variable/input field: a GraphQL name, or
 * `{ to, one?, map? }` (`one`: a single value sent as a one-element list; `map`: value conversion).
 * `false` reads nothing: the property is accepted and deliberately dropped (say why where it is declared).
 */
export type FieldSpec<V extends string = string> = V | false | { to: V; one?: boolean; map?: (value: unknown, input: RestInput) => unknown };

/** REST name -> variable or input field; typed declarations take only the document's own names (`V`). */
export type FieldMap<V extends string = string> = Readonly<Record<string, FieldSpec<V>>>;

/** The variables the operation's document declares. */
type VariableName<N extends OperationId> = keyof VariablesOf<N> & string;
/** The fields of the document's `$input` variable (its input type). */
type InputField<N extends OperationId> = VariablesOf<N> extends { input: infer I } ? keyof NonNullable<I> & string : never;

/** A document's variables, or the fields of its `$input`, by GraphQL name (the untyped form of the builders; the typed overloads name them). */
export type GqlFields = JsonObject;

/** Values of `source` under their GraphQL names (only the properties present). */
export function mapFields(source: unknown, fields: FieldMap, input: RestInput): GqlFields {
  const out: GqlFields = {};
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

export interface ListSpec extends WithDocument {
  /** Root field of the persisted query (a list). */
  root: string;
  /** Query parameters other than paging. */
  params?: FieldMap;
  /** take/page (REST default) -> limit/offset; `none` when the operation does not page. */
  paging?: Paging | 'none';
  /** Other names for parameters (alias -> canonical, e.g. the reference's `Take` -> `take`); an alias sent wins over the canonical name's document default. */
  aliases?: Readonly<Record<string, string>>;
  /** Fixed variables. */
  fixed?: GqlFields;
  toRest?: ToRest;
  /**
   * The response key of the persisted document's total: either a count field of the root under
   * an alias with the same filters (`total: deviceCount(groupId: $groupId, ...)`), exact on every
   * page at constant cost, or (lists without a count field yet) a count selection: the same root
   * with the same filters, no offset and `limit: 1000` (COUNT_MAX), selecting only the key, whose
   * length is the total while it stays below COUNT_MAX (at COUNT_MAX the total is known only on
   * the last page); the price of the latter is reading the ids of the whole filtered list on
   * every page. Without either, only the last page carries the total (`X-Total-Count`).
   */
  count?: string;
}

/** The `limit` of a count selection (kit DEFAULT_LIST_LIMIT.max): a selection this long may be cut short. */
export const COUNT_MAX = 1000;

/** The list's total: a count field's value, or a count selection's length when it is complete (shorter than COUNT_MAX). */
function countedTotal(data: GqlRecord, key: string | undefined): number | undefined {
  if (!key) return undefined;
  const counted = data[key];
  if (typeof counted === 'number' && Number.isInteger(counted) && counted >= 0) return counted;
  return Array.isArray(counted) && counted.length < COUNT_MAX ? counted.length : undefined;
}

/** The query with aliased parameters under their canonical names. */
function canonical(query: RequestParams, aliases: Readonly<Record<string, string>> | undefined): RequestParams {
  if (!aliases) return query;
  const out = { ...query };
  for (const [alias, name] of Object.entries(aliases)) if (out[alias] !== undefined) out[name] = out[alias];
  return out;
}

/** The largest `limit` list queries take (kit DEFAULT_LIST_LIMIT.max): no look-ahead item beyond it. */
const LOOKAHEAD_MAX = 1000;

/** ListSpec typed by the operation's document (root, count key, record) and rest.yaml (item). */
export type TypedListSpec<N extends OperationId, R extends RootOf<N>> = Omit<ListSpec, 'root' | 'count' | 'toRest' | 'params' | 'fixed'> & {
  root: R;
  params?: FieldMap<VariableName<N>>;
  fixed?: { [K in VariableName<N>]?: unknown };
  count?: RootOf<N>;
  toRest?: (record: ItemOf<N, R>, input: RestInput) => RestItemOf<N>;
};

export const listOp = builder<ListSpec, <N extends OperationId, R extends RootOf<N>>(operationId: N, spec: TypedListSpec<N, R>) => Typed<N>>(listOperation);

function listOperation(spec: ListSpec): RestOperation {
  const paging = spec.paging ?? 'take/page';
  const names = paging === 'none' ? undefined : paging === 'take/page' ? { take: 'take', page: 'page' } : paging;
  const params = spec.params ?? {};
  const toRest = spec.toRest ?? snakeRecord;
  const windowOf = (query: RequestParams): { limit?: number | undefined; offset?: number | undefined } =>
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

export interface GetSpec extends WithDocument {
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
  /** The root is a single nullable object whose null means "not found" (404), not a failed field. */
  nullable?: boolean;
  /** What the 404 says: `<what> '<id>' was not found` (default), or with 'field' `<what> was not found` naming the path parameter as its field. */
  notFound?: 'id' | 'field';
}

export type TypedGetSpec<N extends OperationId, R extends RootOf<N>> = Omit<GetSpec, 'root' | 'toRest' | 'query' | 'variable'> & {
  root: R;
  query?: FieldMap<VariableName<N>>;
  variable?: VariableName<N>;
  toRest?: (record: ItemOf<N, R>, input: RestInput) => RestBodyOf<N>;
};

export const getOp = builder<GetSpec, <N extends OperationId, R extends RootOf<N>>(operationId: N, spec: TypedGetSpec<N, R>) => Typed<N>>(getOperation);

function getOperation(spec: GetSpec): RestOperation {
  const param = spec.param ?? 'id';
  const toRest = spec.toRest ?? snakeRecord;
  return {
    variables: (input) => ({ [spec.variable ?? 'id']: input.params[param], ...mapFields(input.query, spec.query ?? {}, input) }),
    respond(data, input) {
      const v = data[spec.root];
      // Unknown and foreign ids look the same: reads only see the caller's account.
      const record = Array.isArray(v) ? v[0] : v;
      if (!isRecord(record))
        throw spec.notFound === 'field'
          ? new AppError('NOT_FOUND', `${spec.what} was not found`, { field: param })
          : notFound(spec.what, String(input.params[param]));
      return { body: toRest(record, input) };
    },
    fieldNames: { [spec.variable ?? 'id']: param, ...inverse(spec.query ?? {}) },
    accepts: { path: [param], query: Object.keys(spec.query ?? {}) },
    ...(spec.nullable ? { nullableRoots: [spec.root] } : {}),
  };
}

/**
 * GET by id selecting the record's `Rest<Type>` fragment, its document written from these names.
 * `from: 'list'`: a list root given the id as a one-element list (`device(id: [$id], limit: 1)`);
 * an empty list (an unknown id, or another account's) is a 404 naming the id. `from: 'nullable'`:
 * a single root (`capFeed(id: $id)`, an `ID!`); an unknown id (or another account's) is a null root
 * without errors, answered 404 naming the id parameter, not a failed gateway.
 */
export function byIdGetOp<N extends OperationId, R extends RootOf<N>>(
  operationId: N,
  spec: { from: 'list' | 'nullable'; root: R; fragment: string; what: string; toRest: (record: ItemOf<N, R>, input: RestInput) => RestBodyOf<N> },
): Typed<N> {
  const [type, args] = spec.from === 'list' ? ['String!', 'id: [$id], limit: 1'] : ['ID!', 'id: $id'];
  const document = `query ${operationId}($id: ${type}) {\n  ${spec.root}(${args}) {\n    ...${spec.fragment}\n  }\n}\n`;
  const missing = spec.from === 'nullable' ? ({ nullable: true, notFound: 'field' } as const) : {};
  return getOp(operationId, { document, root: spec.root, what: spec.what, ...missing, toRest: spec.toRest });
}

export interface BodySpec {
  /** REST body property -> GraphQL input field. */
  fields: FieldMap;
  /** PUT replaces: the input fields every request starts from (what the body leaves out is reset). */
  resetTo?: GqlFields;
  /** Last say over the mapped input (cross-field rules). */
  finish?: (input: GqlFields, rest: RestInput) => GqlFields;
}

/** BodySpec over the names a document takes (its `$input`'s fields, or with `flat` its variables). */
type TypedBodySpec<F extends string> = {
  fields: FieldMap<F>;
  resetTo?: { readonly [K in F]?: unknown };
  finish?: (input: { [K in F]?: unknown }, rest: RestInput) => { [K in F]?: unknown };
};

function bodyInput(body: BodySpec, input: RestInput): GqlFields {
  const mapped = { ...body.resetTo, ...mapFields(input.body, body.fields, input) };
  return body.finish ? body.finish(mapped, input) : mapped;
}

export interface WriteSpec extends WithDocument {
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
  /** The record's selection in the derived document, in answer order (default: its Rest fragment, else its leaf fields). */
  recordFields?: readonly string[];
}

/** A mutation's answer: the payload's record in REST form (a failed payload answers its error); 204 answers no body. */
function recordAnswer(spec: { root: string; record: string }, fieldNames: FieldNames, status: number, toRest: ToRest): RestOperation['respond'] {
  return (data, input) => {
    const record = recordAt(payloadAt(data, spec.root, fieldNames), spec.record);
    return status === 204 ? { status, body: null } : { status, body: toRest(record, input) };
  };
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
    respond: recordAnswer(spec, fieldNames, status, toRest),
    fieldNames,
    accepts: { ...(param ? { path: [param] } : {}), ...(spec.query ? { query: Object.keys(spec.query) } : {}), body: Object.keys(spec.body.fields) },
    document: { root: spec.root, record: spec.record, ...(spec.recordFields ? { recordFields: spec.recordFields } : {}) },
  };
}

/**
 * WriteSpec typed by the mutation's document (root, payload record) and rest.yaml (body). Body and
 * query properties map onto the fields of the document's `$input`, or with `flat: true` onto the
 * document's own variables (`claimDevice($code, $name, ...)`).
 */
export type TypedWriteSpec<N extends OperationId, R extends RootOf<N>, K extends PayloadField<N, R>> = Omit<
  WriteSpec,
  'root' | 'record' | 'toRest' | 'body' | 'query' | 'variable' | 'flat'
> & {
  root: R;
  record: K;
  variable?: VariableName<N>;
  toRest?: (record: PayloadRecord<N, R, K>, input: RestInput) => RestBodyOf<N>;
} & (
    | { flat?: false; body: TypedBodySpec<InputField<N>>; query?: FieldMap<InputField<N>> }
    | { flat: true; body: TypedBodySpec<VariableName<N>>; query?: FieldMap<VariableName<N>> }
  );

type TypedWrite = <N extends OperationId, R extends RootOf<N>, K extends PayloadField<N, R>>(operationId: N, spec: TypedWriteSpec<N, R, K>) => Typed<N>;

export const createOp = builder<WriteSpec, TypedWrite>((s) => writeOp(s, { param: false, status: 201 }));

export const updateOp = builder<WriteSpec, TypedWrite>((s) => writeOp(s, { param: 'id', status: 200 }));

export interface PatchSpec extends WithDocument {
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

export type TypedPatchSpec<N extends OperationId, R extends RootOf<N>, K extends PayloadField<N, R>> = Omit<PatchSpec, 'root' | 'record' | 'toRest'> & {
  root: R;
  record: K;
  toRest?: (record: PayloadRecord<N, R, K>, input: RestInput) => RestBodyOf<N>;
};

/** PATCH with a JSON Patch array whose paths name REST properties. */
export const patchOp = builder<
  PatchSpec,
  <N extends OperationId, R extends RootOf<N>, K extends PayloadField<N, R>>(operationId: N, spec: TypedPatchSpec<N, R, K>) => Typed<N>
>(patchOperation);

function patchOperation(spec: PatchSpec): RestOperation {
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
    respond: recordAnswer(spec, fieldNames, spec.status ?? 200, toRest),
    fieldNames,
    accepts: { path: [param], body: 'whole' },
    document: { root: spec.root, record: spec.record },
  };
}

export interface DeleteSpec extends WithDocument {
  root: string;
  param?: string;
  variable?: string;
}

/** DELETE by id: 204 with no body. */
export const deleteOp = builder<DeleteSpec, <N extends OperationId>(operationId: N, spec: DeleteSpec & { root: RootOf<N> }) => Typed<N>>(deleteOperation);

function deleteOperation(spec: DeleteSpec): RestOperation {
  const param = spec.param ?? 'id';
  return {
    variables: ({ params }) => ({ [spec.variable ?? 'id']: params[param] }),
    respond(data) {
      payloadAt(data, spec.root, { [spec.variable ?? 'id']: param });
      return { status: 204, body: null };
    },
    fieldNames: { [spec.variable ?? 'id']: param },
    accepts: { path: [param] },
    document: { root: spec.root },
  };
}

/** Checks a GqlRecord without a payload (helper for custom operations). */
export { payloadAt, recordAt, recordsAt };
