import DataLoader from 'dataloader';
import { isoSeconds, mutationPayload, once, requirePolicy, resolveLimit, type Cache, type SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { requireRule } from '../domain/access.js';
import { MUTATION_RULES } from '../domain/mutations.js';
import { mainRole } from '../domain/roles.js';
import type { Account, ApiKey, IdentityRepository, Organization, User } from '../identity.repository.js';
import { createUser, updateAccount, type AccountUpdate } from '../use-cases/accounts.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../use-cases/api-keys.js';
import { createOrganization, listOrganizations, type CreateOrganizationInput } from '../use-cases/organizations.js';
import { permissionsOf } from '../use-cases/permissions.js';

const OFFSET_MAX = { default: 0, max: 10_000_000 };

/** Enforces the mutation's rule from the same table `permissions` reports. */
const guard = (ctx: SubgraphContext, mutation: string) => requireRule(ctx.principal, MUTATION_RULES[mutation]!);

export function identityResolvers(deps: { repo: IdentityRepository; cache: Cache; now?: () => number }): GraphQLResolverMap<SubgraphContext> {
  const { repo } = deps;
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
      user: async (_: unknown, args: { id?: string[] | null; orgId?: string | null; limit?: number | null; offset?: number | null }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Account_ManageUsers_View');
        const filter: Record<string, unknown> = {};
        if (args.id) filter.id = { $in: args.id };
        if (args.orgId) filter.orgId = args.orgId;
        const skip = resolveLimit(args.offset, OFFSET_MAX, 'offset');
        return repo.users.find(ctx.principal.accountId, filter, { sort: { username: 1 }, limit: resolveLimit(args.limit), ...(skip ? { skip } : {}) });
      },
      account: (_: unknown, __: unknown, ctx: SubgraphContext) => repo.getAccount(ctx.principal.accountId),
      organizations: (_: unknown, args: { id?: string[] | null; limit?: number | null }, ctx: SubgraphContext) => listOrganizations(repo, ctx.principal.accountId, args),
      apiKeys: (_: unknown, args: { userId?: string | null; includeRevoked?: boolean | null }, ctx: SubgraphContext) => {
        requireRule(ctx.principal, 'Administrator');
        return listApiKeys(repo, ctx.principal.accountId, args);
      },
    },
    Mutation: {
      updateAccount: (_: unknown, { input }: { input: AccountUpdate }, ctx: SubgraphContext) => {
        guard(ctx, 'updateAccount');
        return mutationPayload(async () => ({ account: await updateAccount(repo, ctx.principal.accountId, input) }));
      },
      createOrganization: (_: unknown, { input }: { input: CreateOrganizationInput }, ctx: SubgraphContext) => {
        guard(ctx, 'createOrganization');
        return mutationPayload(async () => ({ organization: await createOrganization(repo, ctx.principal.accountId, input) }));
      },
      createUser: (_: unknown, { input }: { input: Omit<Parameters<typeof createUser>[1], 'accountId'> }, ctx: SubgraphContext) => {
        guard(ctx, 'createUser');
        return mutationPayload(async () => ({ user: await createUser(repo, { ...input, accountId: ctx.principal.accountId }, ctx.principal) }));
      },
      createApiKey: (_: unknown, { input }: { input: { userId: string; name: string; expiresAt?: string | null } }, ctx: SubgraphContext) => {
        guard(ctx, 'createApiKey');
        return mutationPayload(async () => {
          const { key, value } = await createApiKey(repo, { accountId: ctx.principal.accountId, userId: input.userId, name: input.name, expiresAt: input.expiresAt ?? null }, ctx.principal, (deps.now ?? Date.now)());
          return { apiKey: key, key: value };
        });
      },
      revokeApiKey: (_: unknown, { id }: { id: string }, ctx: SubgraphContext) => {
        guard(ctx, 'revokeApiKey');
        return mutationPayload(async () => ({ apiKey: await revokeApiKey(deps, ctx.principal.accountId, id, ctx.principal) }));
      },
    },
    User: {
      __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Account_ManageUsers_View');
        return userLoader(ctx).load(ref.id);
      },
      role: (u: User) => mainRole(u.roles),
      orgId: (u: User) => u.orgId ?? null,
      lastActivity: (u: User) => isoSeconds(u.lastActivity),
      createdOn: (u: User) => isoSeconds(u.createdAt),
    },
    Account: {
      __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => (ref.id === ctx.principal.accountId ? repo.getAccount(ref.id) : null),
      createdOn: (a: Account) => isoSeconds(a.createdAt),
    },
    Organization: {
      __resolveReference: async (ref: { id: string }, ctx: SubgraphContext) => (await repo.organizations.findById(ctx.principal.accountId, ref.id)) ?? null,
      createdOn: (o: Organization) => isoSeconds(o.createdAt),
    },
    ApiKey: {
      createdOn: (k: ApiKey) => isoSeconds(k.createdAt),
      expiresAt: (k: ApiKey) => isoSeconds(k.expiresAt),
      revokedAt: (k: ApiKey) => isoSeconds(k.revokedAt),
      isActive: (k: ApiKey) => !k.revokedAt && (!k.expiresAt || Date.parse(k.expiresAt) > (deps.now ?? Date.now)()),
    },
  };
}
