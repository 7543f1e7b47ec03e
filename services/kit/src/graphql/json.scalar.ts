import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';

/** The JSON scalar of every subgraph: any JSON value, as given (JSON Patch values, event properties, row data). */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
