import { createSubgraph, type Cache, type DocumentStore, type InternalTokens, type Subgraph } from '@pylon/kit';
import { identityResolvers } from './graphql/resolvers.js';
import { IdentityRepository } from './identity.repository.js';
import { ApiKeyAuthenticator } from './use-cases/api-keys.js';

export interface IdentityDeps {
  documents: DocumentStore;
  cache: Cache;
  tokens: InternalTokens;
  principalCacheSeconds: number;
}

export interface IdentityService extends Subgraph {
  repo: IdentityRepository;
  authenticator: ApiKeyAuthenticator;
}

/** The identity subgraph plus the authenticator the gateway's edge uses (in-process or over HTTP). */
export function createIdentitySubgraph(deps: IdentityDeps): IdentityService {
  const repo = new IdentityRepository(deps.documents);
  const authenticator = new ApiKeyAuthenticator({ repo, cache: deps.cache, cacheTtlSeconds: deps.principalCacheSeconds });
  const subgraph = createSubgraph({ name: 'identity', tokens: deps.tokens, resolvers: identityResolvers(repo) });
  return Object.assign(subgraph, { repo, authenticator });
}
