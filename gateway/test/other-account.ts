/** The other tenant of the tenancy checks. */
import { createAccount, createApiKey, createUser } from '@pylon/identity';

type Identity = { repo: Parameters<typeof createAccount>[0] };

/**
 * Account `id` ("Other Co") with an Owner + API user `username` and an API key of that user; answers
 * the key. `of`: the identity subgraph, or a started all-in-one (its in-process identity subgraph).
 */
export async function otherAccountKey(of: Identity | { subgraphs: Record<string, unknown> }, id: string, username: string): Promise<string> {
  const identity = 'subgraphs' in of ? (of.subgraphs.identity as Identity) : of;
  await createAccount(identity.repo, { id, name: 'Other Co' });
  const user = await createUser(identity.repo, { accountId: id, username, roles: ['Owner', 'API'] });
  return (await createApiKey(identity.repo, { accountId: id, userId: user.id, name: 'other' })).value;
}
