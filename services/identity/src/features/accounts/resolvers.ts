/** GraphQL of the account, its users and organizations (identity subgraph); root fields are guarded by createSubgraph from their @policy. */
import { byIdLoader, isoSeconds, mutationPayload, type Cache, type PushEvents, type SubgraphContext } from '@pylon/kit';
import { mainRole } from '../../domain/roles.js';
import type { IdentityRepository, User } from '../../shared/identity.repository.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { createUser, updateAccount } from './accounts.js';
import { createOrganization, listOrganizations } from './organizations.js';
import { patchUser, updateUser } from './update-user.js';

export function accountResolvers(deps: { repo: IdentityRepository; cache: Cache; pushEvents?: PushEvents }): Resolvers {
  const { repo } = deps;
  const userLoader = (ctx: SubgraphContext) => byIdLoader<User>(ctx, 'identity.users', (tenant, ids) => repo.usersByIds(tenant, ids));
  return {
    Query: {
      user: async (_, args, ctx) => repo.searchUsers(ctx.principal.accountId, args),
      userCount: (_, args, ctx) => repo.countUsers(ctx.principal.accountId, args),
      account: (_, __, ctx) => repo.getAccount(ctx.principal.accountId),
      organizations: (_, args, ctx) => listOrganizations(repo, ctx.principal.accountId, args),
    },
    Mutation: {
      updateAccount: (_, { input }, ctx) => mutationPayload(async () => ({ account: await updateAccount(repo, ctx.principal.accountId, input) })),
      createOrganization: (_, { input }, ctx) =>
        mutationPayload(async () => ({ organization: await createOrganization(repo, ctx.principal.accountId, input) })),
      createUser: (_, { input }, ctx) => {
        return mutationPayload(async () => ({
          user: await createUser(repo, { ...input, accountId: ctx.principal.accountId }, ctx.principal, deps.pushEvents),
        }));
      },
      updateUser: (_, { id, input }, ctx) => mutationPayload(async () => ({ user: await updateUser(deps, ctx.principal, id, input) })),
      patchUser: (_, { id, operations }, ctx) => mutationPayload(async () => ({ user: await patchUser(deps, ctx.principal, id, operations) })),
    },
    User: {
      __resolveReference: (ref, ctx) => userLoader(ctx).load(ref.id),
      role: (u) => mainRole(u.roles),
      orgId: (u) => u.orgId ?? null,
      lastActivity: (u) => isoSeconds(u.lastActivity),
      createdOn: (u) => isoSeconds(u.createdAt),
      disabled: (u) => Boolean(u.disabled),
    },
    Account: {
      __resolveReference: (ref, ctx) => (ref.id === ctx.principal.accountId ? repo.getAccount(ref.id) : null),
      createdOn: (a) => isoSeconds(a.createdAt),
    },
    Organization: {
      __resolveReference: async (ref, ctx) => (await repo.findOrganization(ctx.principal.accountId, ref.id)) ?? null,
      createdOn: (o) => isoSeconds(o.createdAt),
    },
  };
}
