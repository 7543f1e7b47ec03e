/**
 * Single-fetch queries without the gateway's result re-shaping.
 *
 * Apollo Gateway answers every operation in three steps: plan (cached per document), fetch from
 * the subgraphs, then rebuild the whole response against the client's selection set
 * (`computeResponse`: every field of every row walked again through the federation schema model,
 * plus a per-request `operationFromDocument`). For a list of 900 rows that last step cost more
 * than the subgraph's own execution and most of the gateway's share of the request.
 *
 * When the plan is one fetch from one subgraph and that fetch asks for exactly the client's
 * response shape (selection-shape.ts: same fields, arguments, aliases, order, nesting; no
 * directives, no abstract types, no introspection), the subgraph's graphql-js answer already is
 * that response, and re-shaping it is an identity. This executor then sends the planned fetch
 * itself, through the same data source (in-process or HTTP, with the caller's signed token), and
 * answers the subgraph's data as it is. Everything else goes to Apollo Gateway's own executor:
 * plans with several fetches, entity fetches, rewrites or conditions; mutations; any request whose
 * variables do not coerce. A direct fetch that answers errors (or fails) is handed to Apollo's
 * executor together with its answer (replay(): the gateway's data sources give that executor's
 * fetch the answer already received), so error paths, partial data and messages are Apollo's and
 * the subgraph is still called once.
 *
 * The plan is the gateway's own: learned from `experimental_didResolveQueryPlan` the first time a
 * document runs the standard way, remembered per parsed document (the server's document cache
 * hands out the same DocumentNode for the same text) and operation name, and forgotten when the
 * schema changes. Nothing of a caller is remembered: each request carries its own context and
 * token to the data source, so authorization and tenancy stay per request in the subgraph.
 *
 * Enabled only over a supergraph without @inaccessible: then the API schema is the subgraphs'
 * union, and a value a subgraph returns (an enum value, a type name) cannot be one the API hides.
 */
import type { ApolloGateway, Experimental_DidResolveQueryPlanCallback, GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { getVariableValues, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import { fragmentsOf, selectionShape } from './selection-shape.js';

type Executor = Awaited<ReturnType<ApolloGateway['load']>>['executor'];
type RequestContext = Parameters<Executor>[0];
type PlanInfo = Parameters<Experimental_DidResolveQueryPlanCallback>[0];
type Fetch = Extract<NonNullable<PlanInfo['queryPlan']['node']>, { kind: 'Fetch' }>;

/** GraphQLDataSourceRequestKind.INCOMING_OPERATION (the enum is not exported; its value is this string). */
const INCOMING_OPERATION = 'incoming operation' as Extract<GraphQLDataSourceProcessOptions, { incomingRequestContext: unknown }>['kind'];

/** What a data source answered, or threw. */
type Outcome = { response: Awaited<ReturnType<GraphQLDataSource['process']>> } | { error: unknown };

/** A document's single fetch, or null: the standard path answers it. */
type Direct = { fetch: Fetch; source: GraphQLDataSource } | null;

export interface SingleFetchStats {
  /** Requests answered from the subgraph's data as it is. */
  direct: number;
  /** Requests the standard executor answered (including plans learned and fallbacks). */
  standard: number;
  /** Direct fetches that answered errors (or failed), handed with their answer to the standard executor. */
  replayed: number;
}

export class SingleFetchPlans {
  readonly stats: SingleFetchStats = { direct: 0, standard: 0, replayed: 0 };
  private plans = new WeakMap<DocumentNode, Map<string, Direct>>();
  /** A direct fetch's answer for the standard executor to use instead of fetching again, by request context. */
  private readonly replays = new WeakMap<object, { query: string; outcome: Outcome }>();
  private readonly enabled: boolean;

  constructor(supergraphSdl: string) {
    this.enabled = !/@inaccessible\b/.test(supergraphSdl);
  }

  /** For ApolloGateway's `experimental_didResolveQueryPlan`: remembers what a document's plan allows. */
  readonly learn: Experimental_DidResolveQueryPlanCallback = ({ queryPlan, serviceMap, requestContext }) => {
    const { document, operation, schema } = requestContext;
    if (!this.enabled || !document || !operation) return;
    let byName = this.plans.get(document);
    if (!byName) this.plans.set(document, (byName = new Map()));
    const key = requestContext.request.operationName ?? '';
    if (byName.has(key)) return;
    byName.set(key, directFetch(queryPlan.node, serviceMap, schema, document, operation));
  };

  /**
   * A data source for the gateway's buildService: answers the standard executor's fetch with the
   * direct fetch's answer when the same request hands one over (see execute), else fetches.
   */
  replay(source: GraphQLDataSource): GraphQLDataSource {
    return {
      process: async (options) => {
        const stashed = this.replays.get(options.context);
        if (stashed && stashed.query === options.request.query) {
          this.replays.delete(options.context);
          if ('error' in stashed.outcome) throw stashed.outcome.error;
          return stashed.outcome.response;
        }
        return source.process(options);
      },
    };
  }

  /** Whether a document (with this operation name) is answered as a single fetch already: planned, without the plan store. */
  knows(document: DocumentNode | undefined, operationName: string | undefined): boolean {
    return document !== undefined && this.plans.get(document)?.has(operationName ?? '') === true;
  }

  /** Forgets every plan (a new schema plans anew). */
  reset(): void {
    this.plans = new WeakMap();
  }

  /** The gateway (what ApolloServer calls of it) with this executor in front of its own. */
  wrap(gateway: ApolloGateway): Pick<ApolloGateway, 'load' | 'onSchemaLoadOrUpdate' | 'stop'> {
    gateway.onSchemaLoadOrUpdate(() => this.reset());
    return {
      load: async (options) => {
        const loaded = await gateway.load(options);
        return { ...loaded, executor: (rc) => this.execute(rc, loaded.executor) };
      },
      onSchemaLoadOrUpdate: (callback) => gateway.onSchemaLoadOrUpdate(callback),
      stop: () => gateway.stop(),
    };
  }

  private async execute(rc: RequestContext, standard: Executor): ReturnType<Executor> {
    const direct = rc.document ? this.plans.get(rc.document)?.get(rc.request.operationName ?? '') : undefined;
    if (!direct || rc.request.http?.headers.get('apollo-query-plan-experimental')) {
      this.stats.standard++;
      return standard(rc);
    }
    const defs = rc.operation?.variableDefinitions ?? [];
    if (defs.length && getVariableValues(rc.schema, defs, rc.request.variables ?? {}).errors) {
      this.stats.standard++;
      return standard(rc);
    }
    const { fetch, source } = direct;
    // As executeQueryPlan passes them: only the variables the fetch uses, as given.
    const variables: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    const given = rc.request.variables;
    for (const name of fetch.variableUsages ?? []) if (given && Object.hasOwn(given, name) && given[name] !== undefined) variables[name] = given[name];
    let outcome: Outcome;
    try {
      outcome = {
        response: await source.process({
          kind: INCOMING_OPERATION,
          request: { query: fetch.operation, variables, ...(fetch.operationName ? { operationName: fetch.operationName } : {}) },
          incomingRequestContext: rc,
          context: rc.context,
          ...(fetch.operationDocumentNode ? { document: fetch.operationDocumentNode } : {}),
          pathInIncomingRequest: [],
        }),
      };
    } catch (error) {
      outcome = { error };
    }
    const response = 'response' in outcome ? outcome.response : undefined;
    if (!response || response.errors?.length || response.data === undefined || response.data === null) {
      // Apollo's executor turns the answer into the response (error paths, partial data); its
      // fetch gets this same answer from replay(), so the subgraph is called once either way.
      this.stats.replayed++;
      this.replays.set(rc.context, { query: fetch.operation, outcome });
      try {
        return await standard(rc);
      } finally {
        this.replays.delete(rc.context);
      }
    }
    this.stats.direct++;
    return { data: response.data };
  }
}

/** The plan's single fetch when its answer is the client's response as it is (see the top of this file). */
function directFetch(
  node: PlanInfo['queryPlan']['node'],
  serviceMap: PlanInfo['serviceMap'],
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: NonNullable<RequestContext['operation']>,
): Direct {
  if (node?.kind !== 'Fetch' || operation.operation !== 'query') return null;
  if (node.requires?.length || node.inputRewrites?.length || node.outputRewrites?.length || node.contextRewrites?.length || node.hasDefers) return null;
  const source = serviceMap[node.serviceName];
  if (!source || node.operationKind !== 'query') return null;
  const client = selectionShape(schema, operation, fragmentsOf(document.definitions));
  if (client === null) return null;
  const fetchDoc = node.operationDocumentNode ?? parse(node.operation);
  const fetchOps = fetchDoc.definitions.filter((d) => d.kind === 'OperationDefinition');
  if (fetchOps.length !== 1) return null;
  const sent = selectionShape(schema, fetchOps[0]!, fragmentsOf(fetchDoc.definitions));
  return sent === client ? { fetch: node, source } : null;
}
