/**
 * The reference OpenAPI (schema/reference/peer-rest-openapi.json: the REST API of the commercial
 * service our users migrate from, OpenAPI 3.0) and our own schema/openapi/rest.yaml, read the way
 * both conformance checks need them: operations keyed by method and path *shape* (parameter names
 * in a template do not matter to a client: /devices/{id}/snap and /devices/{registrationKey}/snap
 * are one path), and reference schemas converted to JSON Schema for ajv.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const REFERENCE_FILE = `${REPO_ROOT}schema/reference/peer-rest-openapi.json`;
export const REST_FILE = `${REPO_ROOT}schema/openapi/rest.yaml`;

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
export type Method = (typeof METHODS)[number];

// OpenAPI documents are plain JSON trees; `any` keeps the walkers short.

export type OpenApi = { paths: Record<string, Record<string, any>>; components?: Record<string, Record<string, any>> } & Record<string, any>;

export const loadReference = (): OpenApi => JSON.parse(readFileSync(REFERENCE_FILE, 'utf8')) as OpenApi;
export const loadRestDocument = (): OpenApi => parse(readFileSync(REST_FILE, 'utf8')) as OpenApi;

/** `/devices/{registrationKey}/snap` -> `/devices/{}/snap`: the part of a template a client depends on. */
export const pathShape = (template: string): string => template.replace(/\{[^}]+\}/g, '{}');

/** `GET /devices/{id}` for messages and allow-list keys. */
export const opKey = (method: string, template: string): string => `${method.toUpperCase()} ${template}`;

export interface Operation {
  method: Method;
  template: string;
  op: any;
}

export function operations(doc: OpenApi): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method, template, op: item[method] });
  }
  return out;
}

/**
 * The reference template a concrete request path falls under, or undefined. Literal segments win
 * over parameters (GET /devices/groups is the groups list, not the device with id "groups"), the
 * way both servers route.
 */
export function matchTemplate(templates: readonly string[], path: string): string | undefined {
  const segments = path.split('/');
  let best: { template: string; literals: number } | undefined;
  for (const template of templates) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    let literals = 0;
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      if (/^\{[^}]+\}$/.test(parts[i]!)) ok = segments[i]!.length > 0;
      else if (parts[i] === segments[i]) literals++;
      else ok = false;
    }
    // Literal segments are compared left to right, so more literals = the more specific route.
    if (ok && (!best || literals > best.literals)) best = { template, literals };
  }
  return best?.template;
}

/** Follows local `$ref`s (`#/components/...`) of `doc` until a non-reference object is reached. */
export function deref(doc: OpenApi, node: any): any {
  let seen = 0;
  while (node && typeof node === 'object' && typeof node.$ref === 'string') {
    if (++seen > 20) throw new Error(`$ref cycle at ${node.$ref}`);
    const ref: string = node.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
    node = ref
      .slice(2)
      .split('/')
      .reduce((at: any, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return node;
}

export type Side = 'request' | 'response';

/** Prefix under which the converted reference components are registered with ajv. */
export const REFERENCE_SCHEMA_ID = 'reference';

/**
 * An OpenAPI 3.0 schema as a JSON Schema ajv (draft-07) understands, for one side of the exchange:
 * - `nullable: true` becomes a `null` type (and a `null` enum value);
 * - a property that is a bare `$ref` may be null too: OpenAPI 3.0 ignores keywords next to `$ref`,
 *   so the generator that wrote the reference could not mark those nullable, and the commercial
 *   service does answer `"location": null` for a device without one;
 * - response side: every property the reference lists must be present (the reference marks almost
 *   nothing `required`, but a generated client reads each of them; a renamed field such as
 *   `timezone` for `timeZone` only shows up as a missing one), properties we add are allowed
 *   (clients ignore what they do not know; our spec adds some), writeOnly properties are dropped;
 * - request side: readOnly properties are dropped;
 * - `$ref: '#/components/...'` points into the schema registered as {@link REFERENCE_SCHEMA_ID}.
 */
export function toJsonSchema(schema: any, side: Side): any {
  if (!schema || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const ref = { $ref: `${REFERENCE_SCHEMA_ID}${schema.$ref}` };
    return schema.nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  }
  const out: any = {};
  for (const [key, value] of Object.entries<any>(schema)) {
    if (
      ['nullable', 'description', 'example', 'xml', 'externalDocs', 'discriminator', 'readOnly', 'writeOnly', 'deprecated'].includes(key) ||
      key.startsWith('x-')
    )
      continue;
    if (key === 'properties') {
      out.properties = {};
      for (const [name, prop] of Object.entries<any>(value)) {
        if ((side === 'response' && prop?.writeOnly) || (side === 'request' && prop?.readOnly)) continue;
        const converted = toJsonSchema(prop, side);
        out.properties[name] = typeof prop?.$ref === 'string' && !prop.nullable ? { anyOf: [converted, { type: 'null' }] } : converted;
      }
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      out[key] = toJsonSchema(value, side);
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      out[key] = (value as any[]).map((s) => toJsonSchema(s, side));
    } else {
      out[key] = value;
    }
  }
  if (schema.nullable) {
    if (out.type !== undefined) out.type = [...new Set([...(Array.isArray(out.type) ? out.type : [out.type]), 'null'])];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  if (side === 'response' && out.properties) {
    if (out.additionalProperties === false) delete out.additionalProperties;
    out.required = Object.keys(out.properties);
  }
  return out;
}

/** The reference components converted for `side`, to register with ajv under {@link REFERENCE_SCHEMA_ID}. */
export function referenceComponents(doc: OpenApi, side: Side): any {
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) schemas[name] = toJsonSchema(schema, side);
  return { $id: REFERENCE_SCHEMA_ID, components: { schemas } };
}
