import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';

/** Any JSON value (row data: column key to cell value). */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'A JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
