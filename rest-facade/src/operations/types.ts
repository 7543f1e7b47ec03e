/** What the facade needs to know about one REST operation beyond the OpenAPI document. */

/** The request after OpenAPI validation: types coerced, defaults applied, `api_key` removed. */
export interface RestInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
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

export interface RestOperation {
  /** REST request -> variables of the persisted document. Undefined values are dropped. */
  variables(input: RestInput): Record<string, unknown>;
  /**
   * When one request needs several calls of the persisted operation (e.g. the reference's bulk
   * commands, one command list per device): their variables, run in order; `respond` then gets
   * `{ batches: [data, ...] }`. Any failed call fails the request.
   */
  batches?(input: RestInput): Record<string, unknown>[] | undefined;
  /**
   * Runs the persisted document of another operation, chosen per request (POST /analytics/dataset
   * runs the GET dataset its body names); such an operation has no document of its own.
   */
  via?(input: RestInput): string;
  /** GraphQL data -> REST answer. Throw an AppError (kit `notFound`, `badInput`) to answer with an error. */
  respond(data: Record<string, unknown>, input: RestInput): RestSuccess;
  /** GraphQL argument -> REST parameter, where the generic snake_case rule does not give it (error `field`s). */
  fieldNames?: Readonly<Record<string, string>>;
  accepts: Accepts;
  /**
   * Root fields that may fail (e.g. FORBIDDEN for this caller) without failing the request: null in
   * the data `respond` gets. Any other null root field answers the error.
   */
  optionalRoots?: readonly string[];
}
