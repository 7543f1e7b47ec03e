/**
 * A subgraph's schema from its kept expansion (src/graphql/subgraph-schema.ts) is the schema
 * @apollo/subgraph's buildSubgraphSchema makes from the same SDL: for every subgraph of schema/,
 * and for the cases those do not show (a type only extended, no entities, a federation error).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { execute, parse, print, printSchema, type ASTNode, type GraphQLSchema } from 'graphql';
import { SCHEMA_DIR } from '../../src/graphql/context.js';
import { expandSubgraphSdl, schemaFromExpansion } from '../../src/graphql/subgraph-schema.js';

const printed = (node: ASTNode | null | undefined) => (node ? print(node) : undefined);

/** Everything a schema's users read of it: its print, each type's definition and extensions, and `_service { sdl }`. */
function shape(schema: GraphQLSchema) {
  const types = Object.values(schema.getTypeMap())
    .filter((t) => !t.name.startsWith('__'))
    .map((t) => ({ name: t.name, astNode: printed(t.astNode), extensions: t.extensionASTNodes.map(printed) }));
  const service = execute({ schema, document: parse('{ _service { sdl } }') });
  return { print: printSchema(schema), types, schemaAst: printed(schema.astNode), service, entities: Boolean(schema.getType('_Entity')) };
}

/** As @apollo/subgraph builds it, and from the expansion after a trip through JSON (as it is kept). */
function both(sdl: string, resolvers?: Parameters<typeof schemaFromExpansion>[1]) {
  const kept = JSON.parse(JSON.stringify(expandSubgraphSdl(sdl))) as ReturnType<typeof expandSubgraphSdl>;
  return [buildSubgraphSchema({ typeDefs: parse(sdl), ...(resolvers ? { resolvers } : {}) }), schemaFromExpansion(kept, resolvers)] as const;
}

const subgraphs = readdirSync(`${SCHEMA_DIR}subgraphs`).filter((f) => f.endsWith('.graphql'));

test.each(subgraphs)('%s: the same schema both ways', (file) => {
  const [library, ours] = both(readFileSync(`${SCHEMA_DIR}subgraphs/${file}`, 'utf8'));
  expect(shape(ours)).toEqual(shape(library));
});

const LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])';

test('a type only extended gets its empty definition, entities resolve by reference, resolvers are wired', async () => {
  const sdl = `${LINK}\nextend type Gadget @key(fields: "id") { id: ID! name: String }\ntype Query { gadget: Gadget }`;
  const resolvers = {
    Query: { gadget: () => ({ id: '1' }) },
    Gadget: { __resolveReference: (ref: { id: string }) => ({ ...ref, name: `gadget ${ref.id}` }), name: (g: { name?: string }) => g.name ?? 'plain' },
  };
  const [library, ours] = both(sdl, resolvers);
  expect(expandSubgraphSdl(sdl).extensionsWithoutDefinition.map(print)).toEqual(['type Gadget']);
  expect(shape(ours)).toEqual(shape(library));
  const query = parse('{ gadget { id name } _entities(representations: [{ __typename: "Gadget", id: "7" }]) { ... on Gadget { name } } }');
  const answers = await Promise.all([library, ours].map((schema) => execute({ schema, document: query })));
  expect(answers[1]).toEqual(answers[0]);
  expect(answers[1]).toEqual({ data: { gadget: { id: '1', name: 'plain' }, _entities: [{ name: 'gadget 7' }] } });
});

test('root types named only in a schema extension: the empty schema definition is kept and built as the library builds it', async () => {
  const sdl = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"]) { query: Root }\ntype Root { hello: String }`;
  const [library, ours] = both(sdl, { Root: { hello: () => 'hi' } });
  expect(expandSubgraphSdl(sdl).extensionsWithoutDefinition.map((d) => d.kind)).toEqual(['SchemaDefinition']);
  expect(shape(ours)).toEqual(shape(library));
  const answers = await Promise.all([library, ours].map((schema) => execute({ schema, document: parse('{ hello }') })));
  expect(answers[1]).toEqual(answers[0]);
});

test('a subgraph without entities has no _entities, as with the library', () => {
  const [library, ours] = both(`${LINK}\ntype Query { hello: String }`);
  expect(shape(ours)).toEqual(shape(library));
  expect(ours.getQueryType()!.getFields()._entities).toBeUndefined();
});

test('an SDL the federation rules refuse fails the same way, naming the problem', () => {
  const sdl = `${LINK}\ntype Gadget @key(fields: "nope") { id: ID! }\ntype Query { gadget: Gadget }`;
  expect(() => buildSubgraphSchema({ typeDefs: parse(sdl) })).toThrow(/nope/);
  expect(() => expandSubgraphSdl(sdl)).toThrow(/nope/);
});
