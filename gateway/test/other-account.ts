/** The other tenant of the tenancy checks. */
import { createAccount, createApiKey, createUser } from '@pylon/identity';

/** Account `id` ("Other Co") with an Owner + API user `username` and an API key of that user; answers the key. */
export async function otherAccountKey(identity: { repo: Parameters<typeof createAccount>[0] }, id: string, username: string): Promise<string> {
  await createAccount(identity.repo, { id, name: 'Other Co' });
  const user = await createUser(identity.repo, { accountId: id, username, roles: ['Owner', 'API'] });
  return (await createApiKey(identity.repo, { accountId: id, userId: user.id, name: 'other' })).value;
}
