/** @pylon/client: a typed client for Pylon's REST and GraphQL APIs (see client.ts). */
export { createPylonClient, type PylonAuth, type PylonClient, type PylonClientOptions } from './client.js';
export { describeError, payload, type GraphQLErrorLike, type PylonError, type Result } from './errors.js';
export { collect, followLinks, followTokens, PagingError, parseLink, type LinkedPage, type TokenPage } from './paging.js';
/** The typed GraphQL documents (one per operation of client/src/operations) and their types. */
export * as documents from './generated/graphql.generated.js';
export type { components, operations, paths } from './generated/rest-api.generated.js';
