/** GraphQL of API keys (identity subgraph): never a key value except the one createApiKey answers once. */
import { isoSeconds, mutationPayload, type Cache } from '@pylon/kit';
import type { IdentityRepository } from '../../shared/identity.repository.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';

export function apiKeyResolvers(deps: { repo: IdentityRepository; cache: Cache; now?: () => number }): Resolvers {
  const { repo } = deps;
  return {
    Query: {
      apiKeys: (_, args, ctx) => listApiKeys(repo, ctx.principal.accountId, args, deps.now),
    },
    Mutation: {
      createApiKey: (_, { input }, ctx) => {
        return mutationPayload(async () => {
          const { key, value } = await createApiKey(
            repo,
            { accountId: ctx.principal.accountId, userId: input.userId, name: input.name, expiresAt: input.expiresAt ?? null },
            ctx.principal,
            (deps.now ?? Date.now)(),
          );
          return { apiKey: key, key: value };
        });
      },
      revokeApiKey: (_, { id }, ctx) => mutationPayload(async () => ({ apiKey: await revokeApiKey(deps, ctx.principal.accountId, id, ctx.principal) })),
    },
    ApiKey: {
      createdOn: (k) => isoSeconds(k.createdAt),
      expiresAt: (k) => isoSeconds(k.expiresAt),
      revokedAt: (k) => isoSeconds(k.revokedAt),
      isActive: (k) => !k.revokedAt && (!k.expiresAt || Date.parse(k.expiresAt) > (deps.now ?? Date.now)()),
    },
  };
}
