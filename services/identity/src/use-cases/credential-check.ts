/**
 * Whether the credential behind a principal still holds, checked by its reference
 * (Principal.credential) in identity's own store: for a connection kept open for a caller this
 * process did not authenticate itself (the live stream behind the gateway, issue 34 M3: the
 * gateway's signed principal lasts a minute by design, which says nothing about the key).
 *
 * - An API key holds while it exists, is neither revoked nor expired, still belongs to the
 *   principal's user, and that user still has the API role (what authentication asks).
 * - A bearer token holds until its expiry, while its user exists.
 * - An internal caller holds (nothing to check). An API-key or bearer principal without a
 *   reference (signed by an older gateway) does not: a credential that cannot be checked is not
 *   trusted to stay open.
 *
 * Answers are kept for `memoMs` per credential, so many streams of one key cost one lookup per
 * interval rather than one each.
 */
import type { Principal } from '@pylon/kit';
import { API_ROLE } from '../domain/roles.js';
import type { IdentityRepository } from '../repositories/identity.repository.js';

const MAX_MEMO = 10_000;

export function credentialChecker(repo: IdentityRepository, o: { memoMs?: number; now?: () => number } = {}) {
  const now = o.now ?? Date.now;
  const memo = new Map<string, { at: number; holds: Promise<boolean> }>();
  async function lookUp(p: Principal, keyId: string): Promise<boolean> {
    const key = await repo.findApiKey(p.accountId, keyId);
    if (!key || key.revokedAt || key.userId !== p.userId) return false;
    if (key.expiresAt && Date.parse(key.expiresAt) <= now()) return false;
    const user = await repo.findUser(p.accountId, key.userId);
    return user !== null && user.roles.includes(API_ROLE);
  }
  return async function holds(p: Principal): Promise<boolean> {
    const c = p.credential;
    if (!c) return p.via === 'internal';
    if (c.kind === 'bearer' && c.expiresAt <= now()) return false;
    const name = c.kind === 'api-key' ? `key:${p.accountId}:${c.id}:${p.userId}` : `user:${p.accountId}:${p.userId}`;
    const hit = memo.get(name);
    if (hit && now() - hit.at < (o.memoMs ?? 1_000)) return hit.holds;
    const answer = c.kind === 'api-key' ? lookUp(p, c.id) : repo.findUser(p.accountId, p.userId).then((u) => u !== null);
    if (memo.size >= MAX_MEMO) memo.clear();
    memo.set(name, { at: now(), holds: answer });
    // A failed lookup is not remembered: the next check asks again.
    answer.catch(() => memo.delete(name));
    return answer;
  };
}
