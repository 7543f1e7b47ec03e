/**
 * The API schema clients see: the committed supergraph with the federation machinery (join__*,
 * link__*, _entities, _service, @inaccessible elements) removed, exactly as the gateway serves it.
 * Persisted operations and operation types are checked against this, never against one subgraph.
 */
import { readFileSync } from 'node:fs';
import { Supergraph } from '@apollo/federation-internals';
import type { GraphQLSchema } from 'graphql';
import { SCHEMA_DIR } from './context.js';

/** Builds the API schema from supergraph SDL (what `pnpm compose` writes). */
export function apiSchemaOf(supergraphSdl: string): GraphQLSchema {
  return Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();
}

/** The API schema of the committed `schema/supergraph.graphql`. */
export function loadApiSchema(): GraphQLSchema {
  return apiSchemaOf(readFileSync(`${SCHEMA_DIR}supergraph.graphql`, 'utf8'));
}
