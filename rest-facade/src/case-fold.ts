/**
 * Enum values matched in any case where rest.yaml marks a query parameter or a top-level body
 * property `x-pylon-case-insensitive: true` (`interval=DAY` and `Day` are `day`). The document keeps
 * one spelling for clients and docs; the facade rewrites a value that matches an enum value in
 * another case to that spelling before validation, so a value matching none is still refused
 * naming the parameter and listing the documented values.
 */
import type { Operation } from 'openapi-backend';
import { isJsonObject as isObj } from '@pylon/kit';

const MARK = 'x-pylon-case-insensitive';

/** lowercase -> the documented spelling, per parameter (or property) name. */
type Folds = ReadonlyMap<string, ReadonlyMap<string, string>>;
export interface CaseFolds {
  query: Folds;
  body: Folds;
}

function foldsOf(schema: unknown): Map<string, string> | undefined {
  if (!isObj(schema) || !Array.isArray(schema.enum)) return undefined;
  const values = schema.enum.filter((v): v is string => typeof v === 'string');
  return new Map(values.map((v) => [v.toLowerCase(), v]));
}

/** The folds of each operation of a dereferenced document (openapi-backend's operations), by operationId. */
export function caseFoldsOf(operations: readonly Operation[]): ReadonlyMap<string, CaseFolds> {
  const out = new Map<string, CaseFolds>();
  for (const op of operations) {
    if (!op.operationId) continue;
    const query = new Map<string, Map<string, string>>();
    for (const p of (op.parameters ?? []) as unknown[]) {
      if (!isObj(p) || p.in !== 'query' || p[MARK] !== true || typeof p.name !== 'string') continue;
      const folds = foldsOf(p.schema);
      if (folds) query.set(p.name, folds);
    }
    const body = new Map<string, Map<string, string>>();
    const requestBody: unknown = op.requestBody;
    const content = isObj(requestBody) && isObj(requestBody.content) ? requestBody.content : {};
    for (const media of Object.values(content)) {
      const properties = isObj(media) && isObj(media.schema) && isObj(media.schema.properties) ? media.schema.properties : {};
      for (const [name, schema] of Object.entries(properties)) {
        const folds = isObj(schema) && schema[MARK] === true ? foldsOf(schema) : undefined;
        if (folds) body.set(name, folds);
      }
    }
    if (query.size || body.size) out.set(op.operationId, { query, body });
  }
  return out;
}

function foldIn(target: unknown, folds: Folds): void {
  if (!isObj(target)) return;
  for (const [name, values] of folds) {
    const v = target[name];
    if (typeof v === 'string') target[name] = values.get(v.toLowerCase()) ?? v;
    else if (Array.isArray(v)) target[name] = v.map((x) => (typeof x === 'string' ? (values.get(x.toLowerCase()) ?? x) : x));
  }
}

/** Rewrites the request's marked values in place (the objects openapi-backend is about to validate). */
export function foldCase(folds: CaseFolds | undefined, request: { query?: unknown; body?: unknown }): void {
  if (!folds) return;
  foldIn(request.query, folds.query);
  foldIn(request.body, folds.body);
}
