/**
 * What a subgraph's resolvers and use cases see of it (the request context, the SDL's folder), kept apart
 * from building and serving the schema (subgraph.ts, serve-subgraph.ts) so that importing `@pylon/kit`
 * does not load Apollo's federation and server packages: those are `@pylon/kit/serving`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/principal.js';

export const SCHEMA_DIR = fileURLToPath(new URL('../../../../schema/', import.meta.url));

/** The text of `schema/subgraphs/<name>.graphql`. */
export function readSubgraphSdl(name: string): string {
  return readFileSync(`${SCHEMA_DIR}subgraphs/${name}.graphql`, 'utf8');
}

/** What every resolver receives. `scope` carries per-request caches (DataLoaders). */
export interface SubgraphContext {
  principal: Principal;
  requestId: string;
  scope: Map<string, unknown>;
}

/** Per-request memo: `once(ctx, 'devices', () => new DataLoader(...))`. */
export function once<T>(ctx: SubgraphContext, key: string, make: () => T): T {
  let v = ctx.scope.get(key) as T | undefined;
  if (v === undefined) {
    v = make();
    ctx.scope.set(key, v);
  }
  return v;
}

export interface Subgraph {
  name: string;
  schema: GraphQLSchema;
  /** Verifies the internal token; throws UNAUTHENTICATED otherwise. */
  createContext(token: string | undefined, requestId?: string): Promise<SubgraphContext>;
  /** Executes a document in-process (used by the all-in-one gateway). */
  execute(request: SubgraphRequest, ctx: SubgraphContext): Promise<ExecutionResult>;
  /** Executes a document already parsed and validated against `schema` (Apollo Server's pipeline, serve-subgraph.ts). */
  executeDocument(document: DocumentNode, request: SubgraphRequest, ctx: SubgraphContext): Promise<ExecutionResult>;
}

export interface SubgraphRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}
