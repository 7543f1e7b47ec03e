import DataLoader from 'dataloader';
import { isoSeconds, once, requirePolicy, resolveLimit, type SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { mainRole } from '../domain/roles.js';
import type { Account, IdentityRepository, User } from '../identity.repository.js';
import { permissionsOf } from '../use-cases/permissions.js';

export function identityResolvers(repo: IdentityRepository): GraphQLResolverMap<SubgraphContext> {
  const userLoader = (ctx: SubgraphContext) =>
    once(ctx, 'identity.users', () =>
      new DataLoader<string, User | null>(async (ids) => {
        const found = await repo.users.find(ctx.principal.accountId, { id: { $in: [...ids] } });
        const byId = new Map(found.map((u) => [u.id, u]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
    );
  return {
    Query: {
      permissions: (_: unknown, __: unknown, ctx: SubgraphContext) => permissionsOf(ctx.principal),
      user: async (_: unknown, args: { limit?: number }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Account_ManageUsers_View');
        return repo.users.find(ctx.principal.accountId, {}, { sort: { username: 1 }, limit: resolveLimit(args.limit) });
      },
      account: (_: unknown, __: unknown, ctx: SubgraphContext) => repo.getAccount(ctx.principal.accountId),
    },
    User: {
      __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Account_ManageUsers_View');
        return userLoader(ctx).load(ref.id);
      },
      role: (u: User) => mainRole(u.roles),
      lastActivity: (u: User) => isoSeconds(u.lastActivity),
    },
    Account: {
      __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => (ref.id === ctx.principal.accountId ? repo.getAccount(ref.id) : null),
      createdOn: (a: Account) => isoSeconds(a.createdAt),
    },
  };
}
