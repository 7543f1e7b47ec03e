/**
 * Building blocks every subgraph uses: its schema from the SDL file in schema/subgraphs,
 * a context built only from a verified internal token, and an in-process executor the
 * all-in-one gateway calls without HTTP (documents parsed and validated once, run by graphql-js).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { defaultFieldResolver, execute, parse, validate, specifiedRules, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { requireRule, type Requirement } from '../auth/access.js';
import { MUTATION_RULES, QUERY_RULES } from '../auth/operation-rules.js';
import type { InternalTokens, Principal } from '../auth/principal.js';
import { createBoundedCache, PARSED_BYTES_PER_CHAR } from './bounded-cache.js';
import { toGraphQLError } from './errors.js';
import type { ResolverMap } from './merge-resolvers.js';

export const SCHEMA_DIR = fileURLToPath(new URL('../../../../schema/', import.meta.url));

/** Reads `schema/subgraphs/<name>.graphql`. */
export function loadSubgraphSdl(name: string): DocumentNode {
  return parse(readFileSync(`${SCHEMA_DIR}subgraphs/${name}.graphql`, 'utf8'));
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

/**
 * Authorization wired once: every Query and Mutation root field of the schema runs its `@policy`
 * rule (QUERY_RULES, MUTATION_RULES, generated from the SDL) before its resolver, so no resolver
 * writes its own guard. A root field without a rule stops the subgraph from starting (closed, never open). The
 * federation fields (`_entities`, `_service`) are left alone: each entity's `__resolveReference`
 * guards by type (ENTITY_RULES), and checks about a particular object (tenancy) stay in the use cases.
 */
export function guardRootFields(schema: GraphQLSchema, subgraph: string): void {
  const tables: [ReturnType<GraphQLSchema['getQueryType']>, Readonly<Record<string, Requirement>>][] = [
    [schema.getQueryType(), QUERY_RULES],
    [schema.getMutationType(), MUTATION_RULES],
  ];
  for (const [type, rules] of tables) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      if (field.name.startsWith('_')) continue;
      const rule = rules[field.name];
      if (rule === undefined) throw new Error(`${subgraph}: ${type!.name}.${field.name} has no @policy rule (run npm run codegen)`);
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (parent, args, ctx: SubgraphContext, info) => {
        requireRule(ctx.principal, rule);
        return resolve(parent, args, ctx, info);
      };
    }
  }
}

export function createSubgraph(opts: {
  name: string;
  /** The subgraph's generated `Resolvers` (graphql/resolvers.generated.ts), merged with `mergeResolvers`. */
  resolvers: ResolverMap;
  tokens: InternalTokens;
}): Subgraph {
  // The one cast: generated resolver types describe the same map @apollo/subgraph takes untyped.
  const schema = buildSubgraphSchema({ typeDefs: loadSubgraphSdl(opts.name), resolvers: opts.resolvers as GraphQLResolverMap<unknown> });
  guardRootFields(schema, opts.name);
  // Query plans repeat the same fetches; parse and validate each distinct text once (kept within
  // 500 documents and an estimated 32 MiB: issue 34, M1).
  const documents = createBoundedCache<DocumentNode>({ maxEntries: 500, maxBytes: 32 * 2 ** 20 });
  const prepare = (query: string): DocumentNode | ExecutionResult => {
    const hit = documents.get(query);
    if (hit) return hit;
    let doc: DocumentNode;
    try {
      doc = parse(query);
    } catch (e) {
      return { errors: [toGraphQLError(e)] };
    }
    const errors = validate(schema, doc, specifiedRules);
    if (errors.length) return { errors };
    documents.set(query, doc, query.length * PARSED_BYTES_PER_CHAR);
    return doc;
  };
  /** graphql-js; errors with their stable codes. */
  const run = async (document: DocumentNode, request: SubgraphRequest, ctx: SubgraphContext): Promise<ExecutionResult> => {
    const result = await execute({
      schema,
      document,
      variableValues: request.variables ?? {},
      ...(request.operationName ? { operationName: request.operationName } : {}),
      contextValue: ctx,
    });
    return result.errors ? { ...result, errors: result.errors.map(toGraphQLError) } : result;
  };
  return {
    name: opts.name,
    schema,
    async createContext(token, requestId = crypto.randomUUID()) {
      const principal = await opts.tokens.verify(token);
      return { principal, requestId, scope: new Map() };
    },
    async execute(request, ctx) {
      const doc = prepare(request.query);
      return 'kind' in doc ? run(doc, request, ctx) : doc;
    },
    executeDocument: run,
  };
}
