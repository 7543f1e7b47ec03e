/**
 * The HTTP side of a REST operation, declared beside its mapping: method, path and the OpenAPI
 * operation object (summary, description, parameters, body, responses, tags, security). `npm run
 * codegen` writes schema/openapi/rest.yaml from these declarations and the hand-kept
 * schema/openapi/rest.components.yaml (info, tags, the reference-compatible component schemas,
 * parameters and responses), and `npm run codegen:check` fails when the committed file drifts.
 *
 *   export const getAccount = route('GET /account', { tags: ['Account'], summary: ..., responses: { ... } },
 *     restOp('getAccount', { ... }));
 *
 * The operationId is not written twice: it is the operation's own (its persisted document's name),
 * or for an operation another service serves (`documented`, with its `x-pylon-handler`) the export name.
 */
import type { HttpMethod, OpenApiObject, OpenApiValue, OperationSpec, RestOperation, RestRoute } from './types.js';

export type { HttpMethod, OpenApiObject, OpenApiValue, OperationSpec, RestRoute } from './types.js';

/** `'GET /devices/{id}'` */
export type RouteAt = `${'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE'} /${string}`;

function parseAt(at: RouteAt): { method: HttpMethod; path: string } {
  const space = at.indexOf(' ');
  return { method: at.slice(0, space).toLowerCase() as HttpMethod, path: at.slice(space + 1) };
}

/** The operation with its method, path and OpenAPI description. */
export function route<O extends RestOperation<never>>(at: RouteAt, spec: OperationSpec, op: O): O & { route: RestRoute } {
  return { ...op, route: { ...parseAt(at), spec } };
}

/** An operation another service serves in front of the facade (its spec names `x-pylon-handler`), documented in the same contract. */
export function documented(at: RouteAt, spec: OperationSpec & { 'x-pylon-handler': string }): { route: RestRoute } {
  return { route: { ...parseAt(at), spec } };
}

/** The shared error answer of each status (rest.components.yaml `components.responses`). */
export const ERROR_RESPONSES = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Unprocessable',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'Unavailable',
} as const;

/** `...errors(400, 401, 500)` in `responses`: each status answered by its shared error response. */
export function errors(...statuses: (keyof typeof ERROR_RESPONSES)[]): Record<string, { $ref: string }> {
  return Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/${ERROR_RESPONSES[s]}` }]));
}

/** A multi-line (Markdown) text: the lines joined, ending in a newline as a YAML block scalar does. */
export const md = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** Shared parameters by name (rest.components.yaml `components.parameters`): `parameters: [...params('IdPath', 'Take')]`. */
export const params = (...names: string[]): { $ref: string }[] => names.map((name) => ({ $ref: `#/components/parameters/${name}` }));

/** A component schema by name: `ref('Device')`. */
export const ref = (schema: string): { $ref: string } => ({ $ref: `#/components/schemas/${schema}` });

/** A JSON `content` map: `content: json(ref('Device'))`. */
export const json = (schema: OpenApiValue): { 'application/json': { schema: OpenApiValue } } => ({ 'application/json': { schema } });

/** A required JSON request body of a component schema: `requestBody: jsonBody('DeviceClaim')`. */
export const jsonBody = (schema: string) => ({ required: true, content: json(ref(schema)) });

/** A JSON list of component records: `arrayOf('Device')`. */
export const arrayOf = (schema: string) => ({ type: 'array', items: ref(schema) });

/**
 * `responses` of an operation answering 200 with JSON: `schema` (`ref('Device')`, `arrayOf('Device')`)
 * described so, each error status by its shared response.
 */
export const answers = (description: string, schema: OpenApiValue, ...statuses: (keyof typeof ERROR_RESPONSES)[]) => ({
  '200': { description, content: json(schema) },
  ...errors(...statuses),
});

/** `responses` of an operation answering 201 with JSON (the new record, `schema`) described so, each error status by its shared response. */
export const created = (description: string, schema: OpenApiValue, ...statuses: (keyof typeof ERROR_RESPONSES)[]) => ({
  '201': { description, content: json(schema) },
  ...errors(...statuses),
});

/** `responses` of an operation answering 204 (no body) described so, each error status by its shared response. */
export const noContent = (description: string, ...statuses: (keyof typeof ERROR_RESPONSES)[]) => ({
  '204': { description },
  ...errors(...statuses),
});

/**
 * A GET by id's parameters and answers, spread into its spec: `{id}` in the path, the record (`schema`)
 * as the 200 answer described so, each error status by its shared response.
 */
export const byId = (description: string, schema: string, ...statuses: (keyof typeof ERROR_RESPONSES)[]) => ({
  parameters: params('IdPath'),
  responses: answers(description, ref(schema), ...statuses),
});

/** The body of a JSON Patch (RFC 6902) operation, under either content type. */
export const JSON_PATCH_BODY = {
  required: true,
  content: { 'application/json-patch+json': { schema: ref('JsonPatch') }, 'application/json': { schema: ref('JsonPatch') } },
} as const;

/** A `content` map of JSON rows that `Accept: text/csv` answers as CSV. */
export const jsonOrCsv = (schema: OpenApiValue): Record<string, { schema: OpenApiValue }> => ({
  'application/json': { schema },
  'text/csv': { schema: { type: 'string' } },
});

/** A report or export file: CSV, XLSX or PDF. */
export const FILE_CONTENT = {
  'text/csv': { schema: { type: 'string' } },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
  'application/pdf': { schema: { type: 'string', format: 'binary' } },
} as const;

/** A 202 answer: the work runs as a job, which `Location` names. */
export const jobAccepted = (description: string, more: OpenApiObject = {}) => ({
  description,
  ...more,
  headers: { Location: { schema: { type: 'string' } } },
  content: json(ref('Job')),
});
