/**
 * The federated gateway: ApolloGateway over the committed supergraph, hardened with
 * graphql-armor limits, CSRF prevention, no batching, and introspection/suggestions only
 * when configured.
 */
import { ApolloGateway, type GraphQLDataSource } from '@apollo/gateway';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { Kind, printSchema, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { formatError, loadOperations, type Logger, type Principal, type RateLimiter } from '@pylon/kit';
import type { GatewayContext } from './data-sources.js';
import { maxFieldDuplicates } from './field-duplication.rule.js';
import { createGatewayCaches, type CacheBounds, type GatewayCaches } from './gateway-caches.js';
import { inputDepthPlugin, maxInputShape } from './input-depth.plugin.js';
import { listCostPlugin } from './list-cost.plugin.js';
import { knownOperationType } from './operation-type.rule.js';
import { planLimitPlugin } from './plan-limit.plugin.js';
import { maxRootFields } from './root-fields.rule.js';
import { disableApolloTelemetry } from './config.js';
import { SingleFetchPlans, type SingleFetchStats } from './single-fetch.executor.js';

export interface GatewayLimits {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxDirectives: number;
  maxTokens: number;
  maxRootFields: number;
  /** How often one response key may appear in one selection set. */
  maxFieldDuplicates: number;
  /** Each of the gateway's per-document caches (gateway-caches.ts): entries and estimated heap bytes. */
  cache: CacheBounds;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxDepth: 8,
  maxCost: 5000,
  maxAliases: 15,
  maxDirectives: 10,
  maxTokens: 2000,
  maxRootFields: 10,
  maxFieldDuplicates: 3,
  cache: { maxEntries: 500, maxBytes: 32 * 2 ** 20 },
};

export interface GatewayOptions {
  supergraphSdl: string;
  buildService: (name: string, url: string) => GraphQLDataSource<GatewayContext>;
  introspection: boolean;
  limits: GatewayLimits;
  logger: Logger;
  plugins?: ApolloServerPlugin<GatewayContext>[];
  /** New documents per HTTP caller (plan-limit.plugin.ts); absent: not limited. */
  planLimiter?: RateLimiter;
}

export interface Gateway {
  server: ApolloServer<GatewayContext>;
  /** The API schema SDL (no federation internals), served at /graphql/?sdl. */
  sdl(): string;
  /**
   * Builds what the first query plan reads and the start need not wait for (the supergraph as a
   * graphql-js schema, ~100-150 ms: patches/@apollo__gateway@2.14.4.patch); called once the server is ready.
   */
  warm(): void;
  /** Runs an operation for an already authenticated principal (in-process facades). */
  execute(
    request: { query: string; variables?: Record<string, unknown>; operationName?: string },
    principal: Principal,
    requestId: string,
  ): Promise<{ status: number; data?: Record<string, unknown> | null; errors?: readonly import('graphql').GraphQLFormattedError[] }>;
  /** How many requests skipped the gateway's result re-shaping (single-fetch.executor.ts). */
  singleFetch: SingleFetchStats;
  /** The bounded caches of parsed documents, plans and persisted queries (their sizes, for tests and metrics). */
  caches: GatewayCaches;
  stop(): Promise<void>;
}

/** Root field names of an operation (its audit action when it has no name). */
function rootFields(op: OperationDefinitionNode): string {
  const names = op.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
  return names.slice(0, 5).join(',') + (names.length > 5 ? ',...' : '') || op.operation;
}

/** Whether a GraphQL document's text starts an operation with `mutation` (comments and strings ignored). */
export function writesBySource(source: string): boolean {
  const text = source.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*/g, ' ');
  return /(^|\})\s*mutation\b/.test(text);
}

/** Tells the HTTP edge's audit trail what kind of operation ran and its name (no-op for in-process facade calls). */
const auditPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart({ contextValue, request }) {
    if (!contextValue.audit) return;
    const note = contextValue.audit;
    // Before parsing and validation, which may fail: a document that never reaches execution is
    // judged by its text (a failed read is a Read, not the HTTP method's Write); a resolved
    // operation corrects both below.
    note.eventType = writesBySource(request.query ?? '') ? 'Write' : 'Read';
    if (typeof request.operationName === 'string' && /^\w{1,100}$/.test(request.operationName)) note.actionName = request.operationName;
    return {
      async didResolveOperation({ operation, operationName }) {
        if (!operation) return;
        note.eventType = operation.operation === 'query' ? 'Read' : 'Write';
        note.actionName = operationName ?? rootFields(operation);
      },
    };
  },
};

export async function createGateway(opts: GatewayOptions): Promise<Gateway> {
  disableApolloTelemetry();
  let apiSchema: GraphQLSchema | undefined;
  // Single-fetch queries skip the gateway's result re-shaping (single-fetch.executor.ts).
  const singleFetch = new SingleFetchPlans(opts.supergraphSdl);
  // Apollo's defaults size these by JSON length, without an entry limit (gateway-caches.ts).
  const caches = createGatewayCaches(opts.limits.cache);
  const gateway = new ApolloGateway({
    supergraphSdl: opts.supergraphSdl,
    // Validated where it is made: `npm run compose` composes it from the subgraphs and the test suite
    // fails on any drift (scripts/compose-supergraph.ts --check). Apollo validates it again at every
    // start outside production by default: ~100-300 ms of `npm start` on this machine.
    validateSupergraph: false,
    queryPlannerConfig: { cache: caches.plans as never },
    experimental_didResolveQueryPlan: singleFetch.learn,
    buildService: ({ name, url }) => singleFetch.replay(opts.buildService(name, url ?? '')),
    logger: {
      debug: () => {},
      info: (m) => opts.logger.debug({ gateway: m }),
      warn: (m) => opts.logger.warn({ gateway: m }),
      error: (m) => opts.logger.error({ gateway: m }),
    },
  });
  gateway.onSchemaLoadOrUpdate(({ apiSchema: s }) => {
    apiSchema = s;
  });
  const l = opts.limits;
  const armor = new ApolloArmor({
    maxDepth: { n: l.maxDepth, flattenFragments: true },
    costLimit: { maxCost: l.maxCost },
    // No allow-list: 101 aliases of `__typename` cost as much to plan and answer as any other (graphql-cop).
    maxAliases: { n: l.maxAliases, allowList: [] },
    maxDirectives: { n: l.maxDirectives },
    // Tokens are capped by graphql-js's own parser option below: armor's version throws inside
    // Apollo's parsing hook, which Apollo answers with 500 instead of 400.
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: !opts.introspection },
  });
  const protection = armor.protect();
  const server = new ApolloServer<GatewayContext>({
    gateway: singleFetch.wrap(gateway) as never,
    documentStore: caches.documents,
    // Automatic persisted queries (Apollo's APQ, the only user of this cache here).
    cache: caches.persistedQueries,
    introspection: opts.introspection,
    hideSchemaDetailsFromClientErrors: !opts.introspection,
    parseOptions: { maxTokens: l.maxTokens },
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    // The process's onShutdown owns SIGTERM (servers, then closers): Apollo's own handler stopped the
    // server early and re-raised the signal, killing the process (143) or stalling its stop for 15 s.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    formatError,
    plugins: [
      ...(protection.plugins as ApolloServerPlugin<GatewayContext>[]),
      // Responses are per caller; HTTP cache hints would be wrong and cost a hook per field.
      ApolloServerPluginCacheControlDisabled(),
      auditPlugin,
      inputDepthPlugin<GatewayContext>(),
      // The facades' persisted documents are exempt: rest.yaml and the legacy routes bound their sizes.
      listCostPlugin<GatewayContext>({ maxCost: l.maxCost, exempt: new Set([...loadOperations('rest').values(), ...loadOperations('legacy').values()]) }),
      // Apollo's landing page loads Apollo Sandbox from a CDN; the self-hosted GraphiQL
      // (docs/api-docs.routes.ts) answers browsers instead.
      ApolloServerPluginLandingPageDisabled(),
      ...(opts.planLimiter
        ? [
            planLimitPlugin({
              limiter: opts.planLimiter,
              planned: (key, document, operationName) => caches.plans.has(key) || singleFetch.knows(document, operationName),
              logger: opts.logger,
            }),
          ]
        : []),
      ...(opts.plugins ?? []),
    ],
    validationRules: [
      knownOperationType(),
      ...protection.validationRules,
      maxRootFields(l.maxRootFields),
      maxFieldDuplicates(l.maxFieldDuplicates),
      maxInputShape(),
    ],
  });
  await server.start();
  return {
    server,
    sdl: () => (apiSchema ? printSchema(apiSchema) : ''),
    warm: () => void (gateway as unknown as { supergraphSchema?: GraphQLSchema }).supergraphSchema,
    async execute(request, principal, requestId) {
      const response = await server.executeOperation(request, { contextValue: { principal, requestId } });
      const status = response.http.status ?? 200;
      if (response.body.kind !== 'single') return { status: 500, errors: [{ message: 'incremental delivery is not supported here' }] };
      const { data, errors } = response.body.singleResult;
      return { status, ...(data !== undefined ? { data } : {}), ...(errors ? { errors } : {}) };
    },
    singleFetch: singleFetch.stats,
    caches,
    stop: () => server.stop(),
  };
}
