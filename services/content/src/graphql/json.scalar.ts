import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';

/** Any JSON value, as given (JSON Patch values, event properties). */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
