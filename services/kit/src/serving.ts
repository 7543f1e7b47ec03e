/**
 * Building and serving a subgraph: the schema with its guards (Apollo Federation), the compiled executor and the HTTP
 * server (Apollo Server on express). Apart from the `@pylon/kit` barrel because loading them costs about a second of CPU,
 * which domain code, the facades' helpers and most tests never need.
 */
export * from './graphql/subgraph.js';
export { setCompiledExecution } from './graphql/compiled-execution.js';
export * from './http/serve-subgraph.js';
