export { createIdentitySubgraph, type IdentityDeps, type IdentityService } from './app.js';
export { IdentityRepository } from './identity.repository.js';
export { createAccount, createUser } from './use-cases/accounts.js';
export { createApiKey, ApiKeyAuthenticator, hashKey } from './use-cases/api-keys.js';
export { policiesFor, API_ROLE } from './domain/roles.js';
