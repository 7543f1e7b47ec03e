/**
 * Whether the credential behind a principal still holds, checked by its reference
 * (Principal.credential) in identity's own store: for a connection kept open for a caller this
 * process did not authenticate itself (the live stream behind the gateway, issue 34 M3: the
 * gateway's signed principal lasts a minute by design, which says nothing about the key).
 *
 * - An API key holds while it exists, is neither revoked nor expired, still belongs to the
 *   principal's user, and that user is not disabled and still has the API role (what authentication asks).
 * - A bearer token holds until its expiry, while its user exists and is not disabled.
 * - An internal caller holds (nothing to check). An API-key or bearer principal without a
 *   reference (signed by an older gateway) does not: a credential that cannot be checked is not
 *   trusted to stay open.
 *
 * The answer is the principal as it stands now (its user's current roles and policies: a user who
 * lost a policy stops getting what it guarded), or null once the credential does not hold. Answers
 * are kept for `memoMs` per credential, so many streams of one key share one lookup per memo period
 * rather than one each (a memo shorter than the re-check interval
 * still means one lookup per re-check per credential).
 */
import type { Principal } from '@pylon/kit';
import { API_ROLE, policiesFor } from '../../domain/roles.js';
import type { IdentityRepository } from '../../shared/identity.repository.js';

const MAX_MEMO = 10_000;

export function credentialChecker(repo: IdentityRepository, o: { memoMs?: number; now?: () => number } = {}) {
  const now = o.now ?? Date.now;
  const memo = new Map<string, { at: number; holds: Promise<Principal | null> }>();
  /** The principal with its user's current roles, or null when the user is gone. */
  async function withUser(p: Principal, check: (roles: readonly string[]) => boolean = () => true): Promise<Principal | null> {
    const user = await repo.findUser(p.accountId, p.userId);
    if (!user || user.disabled || !check(user.roles)) return null;
    return { ...p, roles: [...user.roles], policies: policiesFor(user.roles) };
  }
  async function lookUp(p: Principal, keyId: string): Promise<Principal | null> {
    const key = await repo.findApiKey(p.accountId, keyId);
    if (!key || key.revokedAt || key.userId !== p.userId) return null;
    if (key.expiresAt && Date.parse(key.expiresAt) <= now()) return null;
    return withUser(p, (roles) => roles.includes(API_ROLE));
  }
  return async function holds(p: Principal): Promise<Principal | null> {
    const c = p.credential;
    if (!c) return p.via === 'internal' ? p : null;
    if (c.kind === 'bearer' && c.expiresAt <= now()) return null;
    const name = c.kind === 'api-key' ? `key:${p.accountId}:${c.id}:${p.userId}` : `user:${p.accountId}:${p.userId}`;
    const hit = memo.get(name);
    if (hit && now() - hit.at < (o.memoMs ?? 1_000)) return hit.holds;
    const answer = c.kind === 'api-key' ? lookUp(p, c.id) : withUser(p);
    if (memo.size >= MAX_MEMO) memo.clear();
    memo.set(name, { at: now(), holds: answer });
    // A failed lookup is not remembered: the next check asks again.
    answer.catch(() => memo.delete(name));
    return answer;
  };
}
