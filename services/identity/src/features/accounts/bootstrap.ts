/**
 * The first account, its owner and an API key with a value the operator chose (the migrations
 * job, SIGNAGE_BOOTSTRAP_API_KEY): idempotent, so the job can run on every deploy. Nothing
 * happens when a key with that value exists; the value itself is never logged or returned.
 */
import type { IdentityRepository } from '../../shared/identity.repository.js';
import { createAccount, createUser } from './accounts.js';
import { createApiKey, hashKey } from '../api-keys/api-keys.js';

export interface BootstrapInput {
  apiKey: string;
  accountId: string;
  accountName: string;
  ownerUsername: string;
}

export async function bootstrapFirstAccount(repo: IdentityRepository, input: BootstrapInput): Promise<{ created: boolean; accountId: string }> {
  if (await repo.apiKeyByHash(hashKey(input.apiKey))) return { created: false, accountId: input.accountId };
  if (!(await repo.anyAccount(input.accountId))) await createAccount(repo, { id: input.accountId, name: input.accountName });
  const existing = await repo.findUserByUsername(input.ownerUsername);
  if (existing && existing.accountId !== input.accountId) {
    throw new Error(`the bootstrap owner '${input.ownerUsername}' belongs to another account`);
  }
  const owner =
    existing ??
    (await createUser(repo, {
      accountId: input.accountId,
      username: input.ownerUsername,
      roles: ['Owner', 'API'],
      email: null,
      firstName: null,
      lastName: null,
    }));
  await createApiKey(repo, { accountId: input.accountId, userId: owner.id, name: 'bootstrap', value: input.apiKey });
  return { created: true, accountId: input.accountId };
}
