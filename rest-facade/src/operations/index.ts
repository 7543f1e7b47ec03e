/**
 * Every REST operation, keyed by operationId, collected from the modules of this folder (their
 * list, modules.generated.ts, is written by `npm run codegen`): an exported value that is a
 * RestOperation is registered under the operationId it was declared with (`listOp('listDevices',
 * ...)`, `restOp('getAccount', ...)`), or else under its export name. Adding an endpoint = one
 * declaration wrapped in route(...) (method, path, OpenAPI description) holding its GraphQL
 * document (`gql\`...\``, or derived for a standard mutation) and mapping, exported from an area
 * module (docs/contributing.md); rest.yaml's paths and the REST manifest (schema/operations/rest.manifest.json) are generated from
 * it, and nothing is listed here. The facade refuses to
 * start (and rest-facade/test/registry.test.ts fails) when they disagree or a documented
 * parameter is not mapped.
 */
import { isJsonObject as isObject } from '@pylon/kit';
import { OPERATION_MODULES } from './modules.generated.js';
import type { RestRoute } from './route.js';
import type { OperationModule, RestOperation } from './types.js';

export type { Accepts, RequestParams, RestInput, RestOperation, RestSuccess } from './types.js';

/** A declared REST operation: `variables`, `respond` and the `accepts` the rest.yaml check reads. */
export const isRestOperation = (v: unknown): v is RestOperation =>
  isObject(v) && typeof v.variables === 'function' && typeof v.respond === 'function' && isObject(v.accepts);

/**
 * The operations the modules export, by operationId. Throws when two exports claim one operationId
 * (the same operation exported under two names counts once), or when an operation declared with
 * an operationId is exported under another name.
 */
export function collectOperations(modules: readonly OperationModule[]): Record<string, RestOperation> {
  const out: Record<string, RestOperation> = {};
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) {
      if (!isRestOperation(value)) continue;
      const id = value.operationId ?? name;
      if (value.operationId && value.operationId !== name) throw new Error(`REST operation '${value.operationId}' is exported as '${name}'`);
      if (out[id] && out[id] !== value) throw new Error(`two modules declare the REST operation '${id}'`);
      out[id] = value;
    }
  }
  return out;
}

/**
 * Every route the modules declare, in module and export order: the declared operations' (`route(...)`,
 * keyed like the registry) and those other services serve (`documented(...)`, keyed by export name).
 * rest.yaml's paths are generated from them (scripts/codegen.ts).
 */
export function collectRoutes(modules: readonly OperationModule[]): { operationId: string; route: RestRoute }[] {
  const out = new Map<string, RestRoute>();
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) {
      if (!isObject(value) || !isObject(value.route)) continue;
      const id = isRestOperation(value) ? (value.operationId ?? name) : name;
      const route = value.route as unknown as RestRoute;
      if (out.has(id) && out.get(id) !== route) throw new Error(`two modules declare the route of '${id}'`);
      out.set(id, route);
    }
  }
  return [...out].map(([operationId, route]) => ({ operationId, route }));
}

export const REST_OPERATIONS: Readonly<Record<string, RestOperation>> = collectOperations(OPERATION_MODULES);
