import type { IdentityRepository, User } from './identity.repository.js';

/** lastActivity moves at most once a minute per user, off the request path (failures are ignored). */
export async function touchUser(repo: IdentityRepository, user: Pick<User, 'accountId' | 'id' | 'lastActivity'>, now: number): Promise<void> {
  if (user.lastActivity && now - Date.parse(user.lastActivity) < 60_000) return;
  await repo.markActive(user, new Date(now).toISOString()).catch(() => undefined);
}
