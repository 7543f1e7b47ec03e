/**
 * Building blocks every subgraph uses: its schema from the SDL file in schema/subgraphs,
 * a context built only from a verified internal token, and an in-process executor the
 * all-in-one gateway calls without HTTP (documents compiled once, compiled-execution.ts).
 */
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import {
  defaultFieldResolver,
  execute,
  isObjectType,
  Kind,
  parse,
  validate,
  specifiedRules,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { requireRule, type Requirement } from '../auth/access.js';
import { ENTITY_RULES, MUTATION_RULES, QUERY_RULES } from '../auth/operation-rules.js';
import type { InternalTokens } from '../auth/principal.js';
import { readSubgraphSdl, type Subgraph, type SubgraphContext, type SubgraphRequest } from './context.js';
import { createBoundedCache, PARSED_BYTES_PER_CHAR } from './bounded-cache.js';
import { createCompiledExecutor } from './compiled-execution.js';
import { buildSubgraphSchemaOnce } from './subgraph-schema.js';
import { toGraphQLError } from './errors.js';
import { mergeResolvers, type ResolverMap } from './merge-resolvers.js';

/**
 * Authorization wired once: every Query and Mutation root field of the schema runs its `@policy`
 * rule (QUERY_RULES, MUTATION_RULES, generated from the SDL) before its resolver, so no resolver
 * writes its own guard. A root field without a rule stops the subgraph from starting (closed, never open). The
 * federation fields (`_entities`, `_service`) are left alone here: guardEntityReferences guards each
 * entity by type, and checks about a particular object (tenancy) stay in the use cases.
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

type ResolveReference = (reference: object, ctx: SubgraphContext, info: GraphQLResolveInfo) => unknown;
type EntityExtensions = { apollo?: { subgraph?: { resolveReference?: ResolveReference } } };

/** Whether other subgraphs may fetch this type by key here (`@key` without `resolvable: false`). */
const resolvableEntity = (type: GraphQLObjectType): boolean =>
  [type.astNode, ...type.extensionASTNodes].some((node) =>
    node?.directives?.some(
      (d) => d.name.value === 'key' && !d.arguments?.some((a) => a.name.value === 'resolvable' && a.value.kind === Kind.BOOLEAN && !a.value.value),
    ),
  );

/**
 * The same for entities: every type this subgraph resolves by key (`_entities`) runs its ENTITY_RULES
 * rule before its `__resolveReference` (or before handing the bare reference back, when it has
 * none), so a resolver writes no guard. An entity without a rule stops the subgraph from starting.
 */
export function guardEntityReferences(schema: GraphQLSchema, subgraph: string): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || !resolvableEntity(type)) continue;
    const rule = (ENTITY_RULES as Readonly<Record<string, Requirement>>)[type.name];
    if (rule === undefined) throw new Error(`${subgraph}: entity ${type.name} has no rule in ENTITY_RULES (services/kit/src/auth/operation-rules.ts)`);
    const extensions = type.extensions as EntityExtensions;
    const resolve: ResolveReference = extensions.apollo?.subgraph?.resolveReference ?? ((reference) => reference);
    // As the hand-written guards did: a refusal before an async resolver rejects (that reference
    // alone reads null), before a plain one throws (the whole `_entities` answer fails).
    const guarded: ResolveReference =
      resolve.constructor.name === 'AsyncFunction'
        ? async (reference, ctx, info) => {
            requireRule(ctx.principal, rule);
            return resolve(reference, ctx, info);
          }
        : (reference, ctx, info) => {
            requireRule(ctx.principal, rule);
            return resolve(reference, ctx, info);
          };
    // @apollo/subgraph reads the resolver from here (its own addResolversToSchema writes it the same way).
    (type as { extensions: EntityExtensions }).extensions = {
      ...extensions,
      apollo: { ...extensions.apollo, subgraph: { ...extensions.apollo?.subgraph, resolveReference: guarded } },
    };
  }
}

export function createSubgraph(opts: {
  name: string;
  /** The subgraph's generated `Resolvers` (graphql/resolvers.generated.ts), merged with `mergeResolvers`. */
  resolvers: ResolverMap;
  tokens: InternalTokens;
}): Subgraph {
  // The one cast: generated resolver types describe the same map @apollo/subgraph takes untyped.
  const schema = buildSubgraphSchemaOnce(readSubgraphSdl(opts.name), opts.resolvers as GraphQLResolverMap<unknown>);
  guardRootFields(schema, opts.name);
  guardEntityReferences(schema, opts.name);
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
  const compiled = createCompiledExecutor(schema);
  /** Compiled (compiled-execution.ts), or graphql-js when the document does not compile; errors with their stable codes. */
  const run = async (document: DocumentNode, request: SubgraphRequest, ctx: SubgraphContext): Promise<ExecutionResult> => {
    const result =
      (await compiled.execute(document, request, ctx)) ??
      (await execute({
        schema,
        document,
        variableValues: request.variables ?? {},
        ...(request.operationName ? { operationName: request.operationName } : {}),
        contextValue: ctx,
      }));
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

/** A subgraph whose features share one runtime; main.ts, the all-in-one and the tests reach the runtime and its repository. */
export type RuntimeSubgraph<R extends { repo: unknown }> = Subgraph & { repo: R['repo']; runtime: R };

/** The subgraph `name` over `runtime`: the resolvers of its `features` (each given the runtime), merged. */
export function createRuntimeSubgraph<R extends { repo: unknown }>(
  name: string,
  tokens: InternalTokens,
  runtime: R,
  features: readonly ((rt: R) => ResolverMap)[],
): RuntimeSubgraph<R> {
  const subgraph = createSubgraph({ name, tokens, resolvers: mergeResolvers(...features.map((feature) => feature(runtime))) });
  return Object.assign(subgraph, { repo: runtime.repo, runtime });
}
