/**
 * List-size-aware cost: how many objects an operation asks the subgraphs for, with list sizes
 * multiplied down the tree (graphql-armor's cost counts fields, not the items of lists, so ten
 * aliases of `device(limit: 1000)` or `schedule(limit: 1000) { devices { ... } }` passed it).
 *
 * The model (in the manner of GitHub's node limit and the GraphQL cost directive spec's
 * `@listSize`): every field returning an object costs 1 per item it yields; leaf fields cost
 * nothing (their parent already paid for the object). A list field yields
 *   - the value of its slicing argument (`limit`, `take`, `pageSize`, `first`, `last`: a literal or
 *     the request's variable),
 *   - or, when that argument is not given, its schema default (`limit: Int = 1000` in the SDL) or
 *     else the shared default page, DEFAULT_PAGE (kit DEFAULT_LIST_LIMIT: what a list without the
 *     argument answers),
 *   - or, for a list without a slicing argument, the slicing argument of the object field it hangs
 *     off (`dataTableRows(pageSize: 20) { data { ... } }`: 20), else ASSUMED_SIZE, the expected
 *     length of an embedded list (Schedule.devices, Playlist.sources);
 * and everything selected under a list is multiplied by the number of its items, except the
 * children of a tree (a list of its parent's own type, Group.children), which count as many as the
 * level above (they partition one account's groups). Fragments count
 * where they are spread; inline fragments on abstract types are all counted (an upper bound).
 *
 * A list's own items count at most `sliceCap` (the cost limit): a list asked alone at its documented
 * maximum (`playLogs(limit: 10000)`, over the 5,000 limit) is answered, as the SDL promises; its
 * resolver bounds the size. What it selects under it still multiplies by every item, and any other
 * list beside it goes over the limit (issue 35).
 *
 * Runs once the operation is resolved, so variables are known; refuses with 400 naming the cost
 * and the limit. The facades' persisted operations (schema/operations) are exempt: their shapes
 * are reviewed and their sizes bounded by rest.yaml and the legacy routes, whichever way they arrive.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isCompositeType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  valueFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

export const SLICING_ARGUMENTS = ['limit', 'take', 'pageSize', 'first', 'last'] as const;
/** Items of a sliced list whose argument is absent and has no SDL default (kit DEFAULT_LIST_LIMIT.default). */
export const DEFAULT_PAGE = 100;
/** Items assumed for a list field without a slicing argument (an embedded list: a schedule's devices). */
export const ASSUMED_SIZE = 10;
/**
 * The largest maximum any slicing argument has (analytics logs, 10,000). Every resolver checks its
 * argument against its own maximum (kit resolveLimit) and refuses larger values with
 * BAD_USER_INPUT naming it, doing no work: such a field costs nothing here, so the caller hears
 * which argument is too large rather than a cost.
 */
export const MAX_SLICE = 10_000;

type Variables = Record<string, unknown> | undefined;

/** The slicing argument a field declares, if any. */
const slicingArg = (def: GraphQLField<unknown, unknown>) => def.args.find((a) => (SLICING_ARGUMENTS as readonly string[]).includes(a.name));

/** Items a sliced field answers (see the top of this file); undefined when it declares no slicing argument. */
function slicedSize(field: FieldNode, def: GraphQLField<unknown, unknown>, variables: Variables): number | undefined {
  const slicing = slicingArg(def);
  if (!slicing) return undefined;
  const node = field.arguments?.find((a) => a.name.value === slicing.name);
  const given = node ? valueFromAST(node.value, slicing.type, variables) : undefined;
  if (typeof given === 'number' && Number.isFinite(given)) return given > MAX_SLICE ? 0 : Math.max(0, given);
  return typeof slicing.defaultValue === 'number' ? slicing.defaultValue : DEFAULT_PAGE;
}

/** The objects `operation` asks for (see the top of this file); stops counting past `stopAbove`. */
export function operationCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Variables,
  stopAbove = Number.MAX_SAFE_INTEGER,
  sliceCap = Number.MAX_SAFE_INTEGER,
): number {
  const root =
    operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return 0;
  let total = 0;
  // Depth is bounded by validation (maxDepth, no fragment cycles) before this runs. `page`: the
  // size a sliced wrapper (DataTableRowList from dataTableRows(pageSize:)) passes to its lists.
  const walk = (type: GraphQLCompositeType, set: SelectionSetNode, items: number, page?: number): void => {
    for (const s of set.selections) {
      if (total > stopAbove) return;
      if (s.kind === Kind.FRAGMENT_SPREAD || s.kind === Kind.INLINE_FRAGMENT) {
        const f = s.kind === Kind.FRAGMENT_SPREAD ? fragments[s.name.value] : s;
        if (!f) continue;
        const on = f.typeCondition ? schema.getType(f.typeCondition.name.value) : type;
        if (on && isCompositeType(on)) walk(on, f.selectionSet, items, page);
        continue;
      }
      if (s.name.value.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
      const def = type.getFields()[s.name.value];
      if (!def) continue;
      const named = getNamedType(def.type);
      if (isLeafType(named) || !s.selectionSet) continue;
      const sliced = slicedSize(s, def, variables);
      const list = isListType(getNullableType(def.type));
      // A tree's children (a list of the parent's own type, Group.children) partition the groups
      // the level above returned: a level holds at most as many as the one above, no product.
      const tree = list && !sliced && named === type;
      const own = items * (list && !tree ? (sliced ?? page ?? ASSUMED_SIZE) : 1);
      total += Math.min(own, items * sliceCap);
      walk(named as GraphQLCompositeType, s.selectionSet, own, list ? undefined : sliced);
    }
  };
  walk(root, operation.selectionSet, 1);
  return total;
}

export interface ListCostOptions {
  maxCost: number;
  /** Documents exempt (the facades' persisted operations, by exact text). */
  exempt?: ReadonlySet<string>;
}

export function listCostPlugin<C extends object>(o: ListCostOptions): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation || operation.operation === 'subscription') return;
          if (request.query && o.exempt?.has(request.query)) return;
          const fragments = Object.fromEntries(
            document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
          ) as Record<string, FragmentDefinitionNode>;
          const cost = operationCost(schema, operation, fragments, request.variables, o.maxCost * 1000, o.maxCost);
          if (cost > o.maxCost) {
            const shown = cost > o.maxCost * 1000 ? `more than ${o.maxCost * 1000}` : String(cost);
            throw new GraphQLError(
              `Query cost ${shown} exceeds the limit of ${o.maxCost}: lists weigh by their limit/take/pageSize and nested lists multiply; ask for fewer items per page, or export large tables (REST GET /datatables/{id}/rows/export)`,
              { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', cost: cost > o.maxCost * 1000 ? null : cost, maxCost: o.maxCost, http: { status: 400 } } },
            );
          }
        },
      };
    },
  };
}
