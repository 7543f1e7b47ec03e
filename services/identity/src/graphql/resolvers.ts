import DataLoader from 'dataloader';
import { guardEntity, isoSeconds, mutationPayload, once, type Cache, type PushEvents, type SubgraphContext } from '@pylon/kit';
import { mainRole } from '../domain/roles.js';
import type { IdentityRepository, User } from '../repositories/identity.repository.js';
import { createUser, updateAccount } from '../use-cases/accounts.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../use-cases/api-keys.js';
import { createOrganization, listOrganizations } from '../use-cases/organizations.js';
import { permissionsOf } from '../use-cases/permissions.js';
import type { Resolvers } from './resolvers.generated.js';

/** Every field guards through kit's operation-rules, the table `permissions` reports. */
export function identityResolvers(deps: { repo: IdentityRepository; cache: Cache; now?: () => number; pushEvents?: PushEvents }): Resolvers {
  const { repo } = deps;
  const userLoader = (ctx: SubgraphContext) =>
    once(
      ctx,
      'identity.users',
      () =>
        new DataLoader<string, User | null>(async (ids) => {
          const found = await repo.usersByIds(ctx.principal.accountId, ids);
          const byId = new Map(found.map((u) => [u.id, u]));
          return ids.map((id) => byId.get(id) ?? null);
        }),
    );
  return {
    Query: {
      permissions: (_, __, ctx) => {
        return permissionsOf(ctx.principal);
      },
      user: async (_, args, ctx) => {
        return repo.searchUsers(ctx.principal.accountId, args);
      },
      userCount: (_, args, ctx) => {
        return repo.countUsers(ctx.principal.accountId, args);
      },
      account: (_, __, ctx) => {
        return repo.getAccount(ctx.principal.accountId);
      },
      organizations: (_, args, ctx) => {
        return listOrganizations(repo, ctx.principal.accountId, args);
      },
      apiKeys: (_, args, ctx) => {
        return listApiKeys(repo, ctx.principal.accountId, args, deps.now);
      },
    },
    Mutation: {
      updateAccount: (_, { input }, ctx) => {
        return mutationPayload(async () => ({ account: await updateAccount(repo, ctx.principal.accountId, input) }));
      },
      createOrganization: (_, { input }, ctx) => {
        return mutationPayload(async () => ({ organization: await createOrganization(repo, ctx.principal.accountId, input) }));
      },
      createUser: (_, { input }, ctx) => {
        return mutationPayload(async () => ({
          user: await createUser(repo, { ...input, accountId: ctx.principal.accountId }, ctx.principal, deps.pushEvents),
        }));
      },
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
      revokeApiKey: (_, { id }, ctx) => {
        return mutationPayload(async () => ({ apiKey: await revokeApiKey(deps, ctx.principal.accountId, id, ctx.principal) }));
      },
    },
    User: {
      __resolveReference: (ref, ctx) => {
        guardEntity(ctx.principal, 'User');
        return userLoader(ctx).load(ref.id);
      },
      role: (u) => mainRole(u.roles),
      orgId: (u) => u.orgId ?? null,
      lastActivity: (u) => isoSeconds(u.lastActivity),
      createdOn: (u) => isoSeconds(u.createdAt),
    },
    Account: {
      __resolveReference: (ref, ctx) => {
        guardEntity(ctx.principal, 'Account');
        return ref.id === ctx.principal.accountId ? repo.getAccount(ref.id) : null;
      },
      createdOn: (a) => isoSeconds(a.createdAt),
    },
    Organization: {
      __resolveReference: async (ref, ctx) => {
        guardEntity(ctx.principal, 'Organization');
        return (await repo.findOrganization(ctx.principal.accountId, ref.id)) ?? null;
      },
      createdOn: (o) => isoSeconds(o.createdAt),
    },
    ApiKey: {
      createdOn: (k) => isoSeconds(k.createdAt),
      expiresAt: (k) => isoSeconds(k.expiresAt),
      revokedAt: (k) => isoSeconds(k.revokedAt),
      isActive: (k) => !k.revokedAt && (!k.expiresAt || Date.parse(k.expiresAt) > (deps.now ?? Date.now)()),
    },
  };
}
