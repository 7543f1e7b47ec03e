/**
 * A subgraph's executable schema, exactly as @apollo/subgraph's `buildSubgraphSchema` makes it, with
 * its expensive half done once per SDL text. That function checks the SDL against the federation
 * rules, prints the full subgraph schema (federation types and directives added) and builds
 * graphql-js's schema from the print; only the last step needs the resolvers. The print is kept
 * (derived-cache.ts: written by `npm run build` beside this module, else by the first start from
 * sources; an SDL the federation rules refuse fails there, with their error), so a start parses it
 * and builds the schema: a third of the work, and a process whose prints are kept never loads
 * Apollo's federation library for its schema.
 * subgraph-schema.test.ts holds both ways to the same schema for every subgraph.
 */
import { createRequire } from 'node:module';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { addResolversToSchema } from '@apollo/subgraph/dist/schema-helper/buildSchemaFromSDL.js';
import { entitiesResolver } from '@apollo/subgraph/dist/types.js';
import { buildASTSchema, Kind, parse, type DefinitionNode, type GraphQLSchema } from 'graphql';
import { derivedCache, packageBuild } from '../derived-cache.js';

/** What `buildSubgraphSchema` derives from the SDL alone (JSON, kept per SDL text). */
export interface ExpandedSubgraphSdl {
  /** The federation library's print of the subgraph schema: what `_service { sdl }` answers, and what the schema is built from. */
  sdl: string;
  /**
   * Empty definitions for what the SDL only extends (as the library adds them), as graphql-js AST
   * without locations: an empty schema definition has no text form. Usually none.
   */
  extensionsWithoutDefinition: DefinitionNode[];
  /** Whether the subgraph has entities (`_entities` and `_Entity` resolve). */
  hasEntities: boolean;
}

/** The kept result's format: a change to ExpandedSubgraphSdl changes it, so no start reads an old file. */
const FORMAT = 'expanded-subgraph-sdl/2';

const require = createRequire(import.meta.url);

/** The federation half of `buildSubgraphSchema`; its checks throw here, naming the problem. */
export function expandSubgraphSdl(sdl: string): ExpandedSubgraphSdl {
  // Loaded only to derive: a start that finds its expansion kept does without it.
  const federation = require('@apollo/federation-internals') as typeof import('@apollo/federation-internals');
  const subgraph = federation.buildSubgraph(federation.FEDERATION_UNNAMED_SUBGRAPH_NAME, '', parse(sdl), false);
  // What `toGraphQLJSSchema` adds (a method TypeScript calls private; subgraph-schema.test.ts holds
  // the result to the library's for a type and a schema only extended).
  const extra = (
    subgraph.schema as unknown as { emptyASTDefinitionsForExtensionsWithoutDefinition(): DefinitionNode[] }
  ).emptyASTDefinitionsForExtensionsWithoutDefinition();
  const expanded: ExpandedSubgraphSdl = {
    sdl: federation.printSchema(subgraph.schema),
    extensionsWithoutDefinition: JSON.parse(JSON.stringify(extra, (key: string, value: unknown) => (key === 'loc' ? undefined : value))) as DefinitionNode[],
    hasEntities: subgraph.metadata().entityType() !== undefined,
  };
  // Built once here with graphql-js's own checks, so an expansion no start could build is never kept.
  schemaFromExpansion(expanded, undefined, { checked: false });
  return expanded;
}

const isExpansion = (kept: unknown): boolean => {
  const e = kept as Partial<ExpandedSubgraphSdl> | null;
  return typeof e?.sdl === 'string' && Array.isArray(e.extensionsWithoutDefinition) && typeof e.hasEntities === 'boolean';
};

const expansions = derivedCache<ExpandedSubgraphSdl>({
  name: 'subgraph-schema',
  dirs: [new URL('./', import.meta.url), new URL('../../node_modules/.cache/pylon/', import.meta.url)],
  derive: expandSubgraphSdl,
  // The exact builds that print (federation-internals, with Pylon's patch) and parse it (graphql).
  salt: [FORMAT, packageBuild(import.meta.url, '@apollo/federation-internals'), packageBuild(import.meta.url, 'graphql')].join(' '),
  valid: isExpansion,
});

/** Build step (scripts/write-start-caches.mjs): keeps the expansion of this SDL beside this module (or in `dir`). */
export function writeSubgraphSchemaCache(sdl: string, dir: URL = new URL('./', import.meta.url)): void {
  expansions.write(sdl, dir);
}

/**
 * The schema from an expansion, as the library's `toGraphQLJSSchema` and `buildSubgraphSchema` finish
 * it. `checked` (default): the expansion was built once with graphql-js's checks when it was derived,
 * so they are not run again.
 */
export function schemaFromExpansion(
  expanded: ExpandedSubgraphSdl,
  resolvers: GraphQLResolverMap<unknown> | undefined,
  opts: { checked?: boolean } = {},
): GraphQLSchema {
  const extra = expanded.extensionsWithoutDefinition;
  const ast = parse(expanded.sdl, { noLocation: true });
  const schema = buildASTSchema({ kind: Kind.DOCUMENT, definitions: [...ast.definitions, ...extra] }, { assumeValidSDL: opts.checked ?? true });
  for (const node of extra) {
    if (node.kind === Kind.SCHEMA_DEFINITION) schema.astNode = undefined;
    else if ('name' in node && node.name) {
      const type = schema.getType(node.name.value);
      if (type) type.astNode = undefined;
    }
  }
  const queryRoot = schema.getQueryType()?.name ?? 'Query';
  addResolversToSchema(schema, { [queryRoot]: { _service: () => ({ sdl: expanded.sdl }) } });
  if (expanded.hasEntities) {
    addResolversToSchema(schema, {
      [queryRoot]: {
        _entities: (
          _source: unknown,
          { representations }: { representations: unknown[] },
          context: unknown,
          info: Parameters<typeof entitiesResolver>[0]['info'],
        ) => entitiesResolver({ representations, context, info }),
      },
      _Entity: { __resolveType: (parent: { __typename: string }) => parent.__typename },
    });
  }
  if (resolvers) addResolversToSchema(schema, resolvers);
  return schema;
}

/** `buildSubgraphSchema({ typeDefs: sdl, resolvers })`, from the kept expansion of this SDL text. */
export function buildSubgraphSchemaOnce(sdl: string, resolvers?: GraphQLResolverMap<unknown>): GraphQLSchema {
  return schemaFromExpansion(expansions.get(sdl), resolvers);
}
