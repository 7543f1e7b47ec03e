/** What the facade needs to know about one REST operation beyond the OpenAPI document. */
import type { components, operations as RestApiOperations } from '@pylon/client/generated/rest-api.generated';
import type { RestOperationTypes } from '@pylon/kit/generated/rest-operations.generated';
import type { JsonObject } from '@pylon/kit';
import type { GqlRecord } from './shape.js';

/**
 * The name of a persisted REST operation (named in schema/operations/rest.manifest.json); the operationId
 * of its rest.yaml operation.
 */
export type OperationId = keyof RestOperationTypes & string;
/** The data a persisted operation answers (generated from its document against the API schema). */
export type DataOf<N extends OperationId> = RestOperationTypes[N]['result'];
/** The variables a persisted operation declares. */
export type VariablesOf<N extends OperationId> = RestOperationTypes[N]['variables'];
/** The fields of the document's `$input` variable by name (values checked by the gateway), where a mapper builds the input itself. */
export type SomeInputOf<N extends OperationId> = VariablesOf<N> extends { input: infer I } ? { [K in keyof NonNullable<I>]?: unknown } : never;
/**
 * The variables of a document the type does not name (the registry's operations, the untyped builders):
 * by name, values checked by the gateway against the document.
 */
export type AnyVariables = JsonObject;
/** What a declaration's `variables` returns: the document's own variables, by name (values are checked by the gateway against the document). */
export type SomeVariablesOf<N extends OperationId> = { [K in keyof VariablesOf<N>]?: unknown };
/** A root field of the operation's answer. */
export type RootOf<N extends OperationId> = keyof DataOf<N> & string;
/** One item of a list root (or the object of an object root), nulls removed. */
export type ItemOf<N extends OperationId, R extends RootOf<N>> = NonNullable<DataOf<N>[R]> extends readonly (infer I)[] ? I : NonNullable<DataOf<N>[R]>;

/** The JSON schemas of rest.yaml (`components.schemas`), for mapper results: `RestSchema<'Device'>`. */
export type RestSchema<S extends keyof components['schemas']> = components['schemas'][S];
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : unknown;
type ResponsesOf<N> = N extends keyof RestApiOperations ? RestApiOperations[N]['responses'] : never;
/** The JSON body of an operation's success response (200, else 201) as rest.yaml types it. */
export type RestBodyOf<N> = ResponsesOf<N> extends { 200: infer R } ? JsonOf<R> : ResponsesOf<N> extends { 201: infer R } ? JsonOf<R> : unknown;
/** The JSON request body of an operation as rest.yaml types it (what OpenAPI validation let through). */
export type RestRequestBodyOf<N> = N extends keyof RestApiOperations
  ? RestApiOperations[N] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : unknown
  : unknown;
/** One item of a list body (or the body itself). */
export type RestItemOf<N> = RestBodyOf<N> extends readonly (infer I)[] ? I : RestBodyOf<N>;

/**
 * A path or query parameter after OpenAPI validation: a scalar of the type rest.yaml gives it, or a
 * list of them (a repeated parameter, `style: form, explode: true`).
 */
export type ParamValue = string | number | boolean | readonly (string | number | boolean)[];
/** Path or query parameters by name; one the request left out (and rest.yaml gives no default) is absent. */
export type RequestParams = { readonly [name: string]: ParamValue | undefined };

/** The request after OpenAPI validation: types coerced, defaults applied, `api_key` removed. */
export interface RestInput {
  params: RequestParams;
  query: RequestParams;
  body: unknown;
  /** The request's Accept header (content negotiation, e.g. CSV). */
  accept?: string;
}

export interface RestSuccess {
  /** 200 unless given; 204 sends no body. */
  status?: number;
  /** JSON, unless `contentType` is given: then a Buffer, string or Readable stream sent as is (e.g. a JPEG, streamed CSV). */
  body: unknown;
  contentType?: string;
  /** Response headers (e.g. `Location`). */
  headers?: Readonly<Record<string, string>>;
  /** A page of a list: the handler adds `Link` (RFC 8288: first, prev, next) and, when known, `X-Total-Count`. */
  page?: PageFacts;
}

export interface PageFacts {
  /** The query parameter names of the page size and the 0-based page index. */
  names: { take: string; page: string };
  take: number;
  page: number;
  /** Whether items follow this page. */
  more: boolean;
  /** Items in the whole list, when known (always on the last page: offset + items). */
  total?: number;
}

/**
 * The request parameters and body properties an operation maps. Checked against rest.yaml when the
 * facade starts (and by `npm test`): a documented parameter or body property that no mapper reads
 * is a defect, as is a mapped name the document does not have.
 */
export interface Accepts {
  query?: readonly string[];
  path?: readonly string[];
  /** Top-level body properties; `'whole'` when the body is passed on as a whole (JSON Patch, command lists). */
  body?: readonly string[] | 'whole';
  /** Beside the object properties in `body`, the body may also be a list, mapped as a whole (e.g. bulk commands in the reference's form). */
  arrayBody?: boolean;
}

/**
 * One REST operation. `Data` is the persisted document's answer (`DataOf<'getAccount'>` when declared
 * with `restOp('getAccount', ...)` or a builder given its operationId) and `Variables` what its
 * `variables` may name (`SomeVariablesOf<'getAccount'>`); the registry holds them as `RestOperation`
 * (any data, any variables).
 */
export interface RestOperation<Data = GqlRecord, Variables = AnyVariables> {
  /** The operationId (and persisted document name) it was declared with; the registry keys it so. */
  operationId?: string;
  /** Method, path and OpenAPI description (`route(...)`), from which rest.yaml's paths are generated. */
  route?: RestRoute;
  /**
   * Its persisted GraphQL document: the text (`gql\`query getAccount { ... }\``), or for a standard
   * mutation (createOp, updateOp, patchOp, deleteOp without a text) its root field and the payload
   * field holding the record, from which the text is derived. `npm run codegen` writes it into
   * the REST manifest (schema/operations/rest.manifest.json). Only an operation running another's document
   * (`via`) has none.
   */
  document?: string | MutationDocument;
  /** REST request -> variables of the persisted document. Undefined values are dropped. */
  variables(input: RestInput): Variables;
  /**
   * When one request needs several calls of the persisted operation (e.g. the reference's bulk
   * commands, one command list per device): their variables, run in order; `respond` then gets
   * `{ batches: [data, ...] }`. Any failed call fails the request.
   */
  batches?(input: RestInput): Variables[] | undefined;
  /**
   * Runs the persisted document of another operation, chosen per request (POST /analytics/dataset
   * runs the GET dataset its body names); such an operation has no document of its own.
   */
  via?(input: RestInput): string;
  /** GraphQL data -> REST answer. Throw an AppError (kit `notFound`, `badInput`) to answer with an error. */
  respond(data: Data, input: RestInput): RestSuccess;
  /** GraphQL argument -> REST parameter, where the generic snake_case rule does not give it (error `field`s). */
  fieldNames?: Readonly<Record<string, string>>;
  accepts: Accepts;
  /**
   * Root fields that may fail (e.g. FORBIDDEN for this caller) without failing the request: null in
   * the data `respond` gets. Any other null root field answers the error.
   */
  optionalRoots?: readonly string[];
  /**
   * Root fields whose null WITHOUT an error is an answer (a nullable lookup: nothing there), handed
   * to `respond`; a null with an error still answers the error.
   */
  nullableRoots?: readonly string[];
}

/** A standard mutation's document, described by its root field and the payload field holding the record. */
export interface MutationDocument {
  root: string;
  record?: string;
  /** The record's selection in answer order, where neither its `Rest<Type>` fragment nor its leaf fields in schema order are the answer. */
  recordFields?: readonly string[];
}

/** A module of this folder as imported (`import * as m`): its exports by name, which the registry sorts out. */
export type OperationModule = { readonly [exportName: string]: unknown };

/** HTTP methods of the REST interface, as OpenAPI spells them in a path item. */
export type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** A JSON value of an OpenAPI document (a schema, an example, a `$ref`). */
export type OpenApiValue = string | number | boolean | null | readonly OpenApiValue[] | { readonly [key: string]: OpenApiValue };
export type OpenApiObject = { readonly [key: string]: OpenApiValue };

/** An OpenAPI operation object without its operationId (the declaration gives that). */
export interface OperationSpec {
  tags: readonly string[];
  summary: string;
  description?: string;
  parameters?: readonly OpenApiObject[];
  requestBody?: OpenApiObject;
  /** By status; the shared error answers by `...errors(400, 401, ...)`. */
  responses: { readonly [status: string]: OpenApiObject };
  security?: readonly OpenApiObject[];
  /** `x-pylon-handler` (served by another service), `x-reference-deviation` ... */
  readonly [extension: `x-${string}`]: OpenApiValue | undefined;
}

export interface RestRoute {
  method: HttpMethod;
  path: string;
  spec: OperationSpec;
}
