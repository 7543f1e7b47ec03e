/** Resolver modules merge type by type; a field two modules define fails at start instead of one silently winning. */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLScalarType, parse } from 'graphql';
import { mergeResolvers, type ResolverMap } from '../../src/graphql/merge-resolvers.js';

const a: ResolverMap = { Query: { device: () => 'a' }, Mutation: { createDevice: () => 'a' } };
const b: ResolverMap = { Query: { alert: () => 'b' }, Mutation: { updateDevice: () => 'b' }, Alert: { isActive: () => true } };

test('modules defining different fields merge, every field kept', () => {
  const merged = mergeResolvers(a, b) as Record<string, Record<string, unknown>>;
  expect(Object.keys(merged.Query!).sort()).toEqual(['alert', 'device']);
  expect(Object.keys(merged.Mutation!).sort()).toEqual(['createDevice', 'updateDevice']);
  expect(Object.keys(merged.Alert!)).toEqual(['isActive']);
  // The inputs are not modified.
  expect(Object.keys(a.Query as object)).toEqual(['device']);
});

test('a second Mutation module defining an existing field throws, naming it', () => {
  const second: ResolverMap = { Mutation: { createDevice: () => 'second' } };
  expect(() => mergeResolvers(a, b, second)).toThrow('resolvers: Mutation.createDevice is defined by modules 0 and 2');
});

test('a scalar defined twice throws; defined once it is kept as is', () => {
  const json = new GraphQLScalarType({ name: 'JSON' });
  expect((mergeResolvers<ResolverMap>({ JSON: json }, a) as Record<string, unknown>).JSON).toBe(json);
  expect(() => mergeResolvers<ResolverMap>({ JSON: json }, { JSON: json })).toThrow('resolvers: JSON is defined by modules 0 and 1');
});

test('the merged map builds a working subgraph schema', () => {
  const schema = buildSubgraphSchema({
    typeDefs: parse('type Query { device: String alert: String }'),
    resolvers: mergeResolvers<ResolverMap>({ Query: { device: () => 'd' } }, { Query: { alert: () => 'x' } }) as never,
  });
  expect(Object.keys(schema.getQueryType()!.getFields())).toEqual(expect.arrayContaining(['device', 'alert']));
});
