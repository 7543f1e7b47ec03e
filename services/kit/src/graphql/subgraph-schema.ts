/**
 * A subgraph's executable schema, exactly as @apollo/subgraph's `buildSubgraphSchema` makes it, with
 * its expensive half done once per SDL text. That function checks the SDL against the federation
 * rules, prints the full subgraph schema (federation types and directives added) and builds
 * graphql-js's schema from the print; only the last step needs the resolvers. The print is kept
 * (derived-cache.ts: written by `npm run build` beside this module, else by the first start from
 * sources), so a start parses it and builds the schema: a sixth of the federation work, and a
 * process whose prints are kept never loads Apollo's federation library for its schema.
 * subgraph-schema.test.ts holds both ways to the same schema for every subgraph.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { addResolversToSchema } from '@apollo/subgraph/dist/schema-helper/buildSchemaFromSDL.js';
import { entitiesResolver } from '@apollo/subgraph/dist/types.js';
import { buildASTSchema, Kind, parse, print, type DefinitionNode, type GraphQLSchema } from 'graphql';
import { derivedCache } from '../derived-cache.js';

/** What `buildSubgraphSchema` derives from the SDL alone (JSON, kept per SDL text). */
export interface ExpandedSubgraphSdl {
  /** The federation library's print of the subgraph schema: what `_service { sdl }` answers, and what the schema is built from. */
  sdl: string;
  /** Empty definitions for types only extended in the SDL (as the library adds them), printed; usually empty. */
  extensionsWithoutDefinition: string;
  /** Whether the subgraph has entities (`_entities` and `_Entity` resolve). */
  hasEntities: boolean;
}

const require = createRequire(import.meta.url);

/** The federation library's version and graphql's: a print is kept per pair, so an upgrade derives anew. */
function librariesVersion(): string {
  const versionOf = (pkg: string) => {
    for (let dir = dirname(require.resolve(pkg)); dir !== dirname(dir); dir = dirname(dir)) {
      try {
        const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (json.name === pkg) return `${pkg}@${json.version}`;
      } catch {
        // no package.json at this level
      }
    }
    return pkg;
  };
  return ['@apollo/federation-internals', 'graphql'].map(versionOf).join(' ');
}

/** The federation half of `buildSubgraphSchema` (its checks throw here, naming the problem). */
export function expandSubgraphSdl(sdl: string): ExpandedSubgraphSdl {
  // Loaded only to derive: a start that finds its print kept does without it.
  const federation = require('@apollo/federation-internals') as typeof import('@apollo/federation-internals');
  const subgraph = federation.buildSubgraph(federation.FEDERATION_UNNAMED_SUBGRAPH_NAME, '', parse(sdl), false);
  // What `toGraphQLJSSchema` adds (a method TypeScript calls private; subgraph-schema.test.ts holds
  // the result to the library's for a type only extended).
  const extra = (
    subgraph.schema as unknown as { emptyASTDefinitionsForExtensionsWithoutDefinition(): DefinitionNode[] }
  ).emptyASTDefinitionsForExtensionsWithoutDefinition();
  return {
    sdl: federation.printSchema(subgraph.schema),
    extensionsWithoutDefinition: extra.length ? print({ kind: Kind.DOCUMENT, definitions: extra }) : '',
    hasEntities: subgraph.metadata().entityType() !== undefined,
  };
}

const expansions = derivedCache<ExpandedSubgraphSdl>({
  name: 'subgraph-schema',
  dirs: [new URL('./', import.meta.url), new URL('../../node_modules/.cache/pylon/', import.meta.url)],
  derive: expandSubgraphSdl,
  salt: librariesVersion(),
});

/** Build step (scripts/write-start-caches.mjs): keeps the expansion of this SDL beside this module (or in `dir`). */
export function writeSubgraphSchemaCache(sdl: string, dir: URL = new URL('./', import.meta.url)): void {
  expansions.write(sdl, dir);
}

/** The schema from an expansion, as the library's `toGraphQLJSSchema` and `buildSubgraphSchema` finish it. */
export function schemaFromExpansion(expanded: ExpandedSubgraphSdl, resolvers: GraphQLResolverMap<unknown> | undefined): GraphQLSchema {
  const extra: readonly DefinitionNode[] = expanded.extensionsWithoutDefinition
    ? parse(expanded.extensionsWithoutDefinition, { noLocation: true }).definitions
    : [];
  const ast = parse(expanded.sdl, { noLocation: true });
  // The print came from a schema the library checked: graphql-js need not check the SDL again.
  const schema = buildASTSchema({ kind: Kind.DOCUMENT, definitions: [...ast.definitions, ...extra] }, { assumeValidSDL: true });
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
