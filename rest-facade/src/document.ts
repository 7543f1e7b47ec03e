/** The OpenAPI document that drives the facade, and its agreement with the persisted operations. */
import { readFileSync } from 'node:fs';
import { Kind, parse as parseGraphQL } from 'graphql';
import type { Document } from 'openapi-backend';
import { isJsonObject, REST_MANIFEST, SCHEMA_DIR } from '@pylon/kit';
import type { OpenApiObject } from './operations/types.js';
import { restDocumentOf } from './document-cache.js';

export const REST_DOCUMENT_PATH = `${SCHEMA_DIR}openapi/rest.yaml`;

export interface RestDocument {
  /** The file as written (served at /openapi.yaml). */
  yaml: string;
  /** The same document as JSON text (served at /openapi.json). */
  json: string;
  /** Parsed, `$ref`s intact. Hand openapi-backend a copy: it dereferences in place. */
  definition: Document;
}

export function loadRestDocument(path = REST_DOCUMENT_PATH): RestDocument {
  const yaml = readFileSync(path, 'utf8');
  // Parsed at build time (or by an earlier start) when this is the YAML it read (document-cache.ts).
  const definition = restDocumentOf(yaml) as Document;
  if (!definition || typeof definition !== 'object' || !String(definition.openapi).startsWith('3.1')) {
    throw new Error(`${path} is not an OpenAPI 3.1 document`);
  }
  return { yaml, json: JSON.stringify(definition), definition };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Every operation of the document as { operationId, method, path, handler }; throws on a missing or
 * duplicate operationId. `handler` is the operation's `x-pylon-handler` extension: operations that
 * another component serves (e.g. `player`: the devices service's player API, mounted before the
 * facade) are documented here but have no persisted document and no mapper.
 */
export function operationsOf(definition: Document): { operationId: string; method: string; path: string; handler?: string }[] {
  const out: { operationId: string; method: string; path: string; handler?: string }[] = [];
  for (const [path, item] of Object.entries(definition.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, { operationId?: string; 'x-pylon-handler'?: unknown } | undefined> | undefined)?.[method];
      if (!op) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      if (out.some((o) => o.operationId === op.operationId)) throw new Error(`operationId '${op.operationId}' is used twice`);
      const handler = typeof op['x-pylon-handler'] === 'string' ? op['x-pylon-handler'] : undefined;
      out.push({ operationId: op.operationId, method, path, ...(handler ? { handler } : {}) });
    }
  }
  return out;
}

/**
 * The document's operations, the persisted GraphQL documents and the mappers must name the same
 * operationIds, and each persisted document must hold exactly one operation named after its file
 * (sent as operationName). Returns every problem found, so one start reports them all.
 */
export function checkAgreement(operationIds: readonly string[], persisted: ReadonlyMap<string, string>, mappers: readonly string[]): string[] {
  const problems: string[] = [];
  const inDoc = new Set(operationIds);
  for (const id of inDoc) {
    if (!persisted.has(id)) problems.push(`operation '${id}' has no document in ${REST_MANIFEST}`);
    if (!mappers.includes(id)) problems.push(`operation '${id}' has no mapper in rest-facade/src/operations`);
  }
  for (const id of persisted.keys()) if (!inDoc.has(id)) problems.push(`${REST_MANIFEST}: document '${id}' matches no operationId in rest.yaml`);
  for (const id of mappers) if (!inDoc.has(id)) problems.push(`mapper '${id}' matches no operationId in rest.yaml`);
  for (const [id, text] of persisted) {
    try {
      const ops = parseGraphQL(text).definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
      if (ops.length !== 1 || ops[0]?.name?.value !== id) problems.push(`${REST_MANIFEST}: document '${id}' must hold exactly one operation, named '${id}'`);
    } catch (e) {
      problems.push(`${REST_MANIFEST}: document '${id}' does not parse: ${(e as Error).message}`);
    }
  }
  return problems;
}

/** Methods the document defines for a concrete path (for 405 Allow), HEAD and OPTIONS included. */
export function allowedMethods(definition: Document, path: string): string[] {
  const normalized = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const methods = new Set<string>();
  for (const [template, item] of Object.entries(definition.paths ?? {})) {
    const pattern = new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    );
    if (!pattern.test(normalized)) continue;
    for (const m of METHODS) if (item?.[m]) methods.add(m.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  if (methods.size) methods.add('OPTIONS');
  return [...methods];
}

/** A JSON object of the document (a path item, an operation, a schema, a `$ref`). */
type Json = OpenApiObject;
const isObj = (v: unknown): v is Json => isJsonObject(v);

/** Follows a local `$ref` ('#/components/...') to what it names. */
function deref(definition: Document, v: unknown): unknown {
  let cur = v;
  for (let i = 0; i < 20 && isObj(cur) && typeof cur.$ref === 'string' && cur.$ref.startsWith('#/'); i++) {
    cur = cur.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((o, k) => (isObj(o) ? o[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), definition);
  }
  return cur;
}

/** Top-level properties a body schema allows (every branch of anyOf/oneOf/allOf); `whole` when a branch is not an object. */
function bodyProperties(definition: Document, schema: unknown): { names: Set<string>; whole: boolean } {
  const out = { names: new Set<string>(), whole: false };
  const visit = (s: unknown, depth: number): void => {
    const d = deref(definition, s);
    if (!isObj(d) || depth > 10) return;
    const branches = [d.anyOf, d.oneOf, d.allOf].filter(Array.isArray).flat();
    for (const b of branches) visit(b, depth + 1);
    if (isObj(d.properties)) for (const k of Object.keys(d.properties)) out.names.add(k);
    // A branch that only requires properties declared beside it (`{ type: object, required: [...] }`) adds none.
    else if (!branches.length && !(d.type === 'object' && Array.isArray(d.required))) out.whole = true;
  };
  visit(schema, 0);
  return out;
}

/** What the document lets a client send to one operation: parameters by location, body properties. */
export function documentedInputs(
  definition: Document,
  path: string,
  method: string,
): { query: string[]; path: string[]; body: { names: Set<string>; whole: boolean } | undefined } {
  const item = (definition.paths?.[path] ?? {}) as Json;
  const op = (item[method] ?? {}) as Json;
  const params = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])]
    .map((p) => deref(definition, p))
    .filter(isObj);
  const names = (where: string) => params.filter((p) => p.in === where).map((p) => String(p.name));
  const content = isObj(deref(definition, op.requestBody)) ? ((deref(definition, op.requestBody) as Json).content as Json | undefined) : undefined;
  let body: { names: Set<string>; whole: boolean } | undefined;
  for (const media of Object.values(content ?? {})) {
    if (!isObj(media)) continue;
    const found = bodyProperties(definition, media.schema);
    body ??= { names: new Set(), whole: false };
    for (const n of found.names) body.names.add(n);
    body.whole ||= found.whole;
  }
  return { query: names('query'), path: names('path'), body };
}

/**
 * Every documented parameter and body property must be read by the operation's mapper (its
 * `accepts`), and the mapper may name nothing the document lacks: a parameter the facade silently
 * ignored would look supported to clients. Returns every problem found.
 */
export function checkMapped(
  definition: Document,
  mappers: Readonly<
    Record<string, { accepts: { query?: readonly string[]; path?: readonly string[]; body?: readonly string[] | 'whole'; arrayBody?: boolean } }>
  >,
): string[] {
  const problems: string[] = [];
  for (const { operationId, method, path, handler } of operationsOf(definition)) {
    const mapper = mappers[operationId];
    if (handler || !mapper) continue;
    const doc = documentedInputs(definition, path, method);
    const accepts = mapper.accepts;
    for (const where of ['query', 'path'] as const) {
      const mapped = new Set(accepts[where] ?? []);
      for (const name of doc[where]) if (!mapped.has(name)) problems.push(`${operationId}: ${where} parameter '${name}' is documented but not mapped`);
      for (const name of mapped)
        if (!doc[where].includes(name)) problems.push(`${operationId}: maps ${where} parameter '${name}', which rest.yaml does not document`);
    }
    if (accepts.body === 'whole') {
      if (!doc.body) problems.push(`${operationId}: maps a body, which rest.yaml does not document`);
      continue;
    }
    const mapped = new Set(accepts.body ?? []);
    if (doc.body?.whole && !accepts.arrayBody) problems.push(`${operationId}: the body may be a non-object; declare accepts.body 'whole' or accepts.arrayBody`);
    for (const name of doc.body?.names ?? []) if (!mapped.has(name)) problems.push(`${operationId}: body property '${name}' is documented but not mapped`);
    for (const name of mapped) if (!doc.body?.names.has(name)) problems.push(`${operationId}: maps body property '${name}', which rest.yaml does not document`);
  }
  return problems;
}

/**
 * Everything the facade checks before it starts (and rest-facade/test/registry.test.ts in
 * `npm test`): rest.yaml, the persisted documents and the registry name the same operations, and
 * every documented parameter and body property is mapped. Operations served elsewhere
 * (`x-pylon-handler`) need neither document nor mapper; one that runs another operation's document
 * (`via`) has no document of its own.
 */
export function checkFacade(
  definition: Document,
  persisted: ReadonlyMap<string, string>,
  operations: Readonly<Record<string, Parameters<typeof checkMapped>[1][string] & { via?: unknown }>>,
): string[] {
  const documented = operationsOf(definition);
  return [
    ...checkAgreement(
      documented.filter((o) => !o.handler && !operations[o.operationId]?.via).map((o) => o.operationId),
      persisted,
      Object.keys(operations).filter((id) => !operations[id]!.via),
    ),
    ...checkMapped(definition, operations),
  ];
}
