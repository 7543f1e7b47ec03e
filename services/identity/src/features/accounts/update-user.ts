/**
 * Changing a user of the account: names, email, roles, organization, and off-boarding (disabled).
 *
 * Rules, checked before anything is written:
 * - the caller is an owner or administrator (the field's @policy, as for createUser);
 * - only an owner may grant or remove the Owner role, or change or disable an owner (assertMayManage);
 * - the account keeps at least one enabled owner: its last one can be neither demoted nor disabled;
 * - nobody disables themselves (an operator locked out by their own hand needs another to undo it);
 * - a user of another account reads as not found.
 *
 * A disabled user's credentials stop at once where they are looked up: API keys (the cached
 * principals of the user's keys are forgotten here, and every other process is told through the
 * revocation events, as for a revoked key), sign-in and token refresh (the OAuth server's
 * findAccount), and the live stream's re-check. An access token already issued is a signed JWT:
 * it is refused as soon as its principal is looked up again, i.e. within PRINCIPAL_CACHE_SECONDS,
 * and never later than its own expiry. The same forgetting applies to a roles change, so a demoted
 * user's keys lose the old policies at once too.
 */
import { AppError, applyJsonPatch, notFound, type Cache, type Principal, type PushEvents } from '@pylon/kit';
import type { IdentityRepository, User } from '../../shared/identity.repository.js';
import { forgetUserKeys } from '../api-keys/api-keys.js';
import { assertMayManage, checkEmail, checkOrgId, checkRoles } from './accounts.js';
import { optionalText } from '../../domain/validation.js';

/** Fields to change: absent (or, for roles and disabled, null) stays as it is; null clears an optional text. */
export interface UpdateUserInput {
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  roles?: readonly string[] | null;
  orgId?: string | null;
  disabled?: boolean | null;
}

export interface UpdateUserDeps {
  repo: IdentityRepository;
  cache: Cache;
  pushEvents?: PushEvents;
}

type UserChanges = Parameters<IdentityRepository['changeUser']>[2];

const unprocessable = (field: string, message: string) => new AppError('UNPROCESSABLE', message, { field });
const holdsOwner = (u: Pick<User, 'roles' | 'disabled'>) => u.roles.includes('Owner') && !u.disabled;

export async function updateUser(
  deps: UpdateUserDeps,
  actor: Pick<Principal, 'accountId' | 'userId' | 'roles'>,
  id: string,
  input: UpdateUserInput,
): Promise<User> {
  const { repo } = deps;
  const accountId = actor.accountId;
  const userId = optionalText(id, 'id', 100);
  // Unknown and foreign ids read alike: the lookup is in the caller's account only.
  const user = userId ? await repo.findUser(accountId, userId) : null;
  if (!user) throw notFound('user', String(id).slice(0, 100));

  const set: UserChanges = {};
  for (const f of ['firstName', 'lastName'] as const) {
    const v = optionalText(input[f], f);
    if (v !== undefined && v !== user[f]) set[f] = v;
  }
  const email = checkEmail(input.email);
  if (email !== undefined && email !== user.email) set.email = email;
  if (input.roles !== undefined && input.roles !== null) {
    const roles = checkRoles(input.roles);
    if (!roles.some((r) => r !== 'API'))
      throw new AppError('BAD_USER_INPUT', 'roles must hold a main role (Owner, Administrator, Manager, Editor or Viewer)', { field: 'roles' });
    if (roles.length !== user.roles.length || roles.some((r) => !user.roles.includes(r))) set.roles = roles;
  }
  const orgId = await checkOrgId(repo, accountId, input.orgId);
  if (orgId !== undefined && orgId !== (user.orgId ?? null)) set.orgId = orgId;
  if (input.disabled !== undefined && input.disabled !== null && input.disabled !== Boolean(user.disabled)) set.disabled = input.disabled;
  if (Object.keys(set).length === 0) return user;

  // An owner is changed by an owner only; granting or removing Owner likewise.
  const ownerChanges = set.roles !== undefined && set.roles.includes('Owner') !== user.roles.includes('Owner');
  assertMayManage(actor, [...user.roles, ...(set.roles ?? [])], ownerChanges ? 'roles' : 'id');
  if (set.disabled && user.id === actor.userId) throw unprocessable('disabled', 'you cannot disable yourself; another owner or administrator can');
  const after = { roles: set.roles ?? user.roles, disabled: set.disabled ?? user.disabled };
  if (holdsOwner(user) && !holdsOwner(after) && (await repo.countEnabledOwners(accountId)) <= 1) {
    const field = set.disabled ? 'disabled' : 'roles';
    throw unprocessable(field, `user '${user.username}' is the account's last enabled owner: make another user an owner first`);
  }

  const updated = await repo.changeUser(accountId, user.id, set);
  if (!updated) throw notFound('user', user.id);
  if (set.roles || set.disabled !== undefined) await forgetUserKeys(deps, accountId, user.id);
  deps.pushEvents?.emit(accountId, 'user.updated', {
    user_id: updated.id,
    email: updated.email ?? '',
    changed: Object.keys(set).sort(),
    disabled: Boolean(updated.disabled),
  });
  return updated;
}

const PATCH_FIELDS = ['firstName', 'lastName', 'email', 'roles', 'orgId', 'disabled'] as const;
const PATCH_RULES = {
  writable: new Set<string>(PATCH_FIELDS),
  readOnly: new Set(['id', 'username', 'userName', 'role', 'lastActivity', 'createdOn', 'createdAt', 'updatedAt', 'accountId', 'version']),
};

/** JSON Patch over the writable fields (remove = null, which leaves roles and disabled as they are); then updateUser's rules. */
export async function patchUser(
  deps: UpdateUserDeps,
  actor: Pick<Principal, 'accountId' | 'userId' | 'roles'>,
  id: string,
  operations: unknown,
): Promise<User> {
  const user = await deps.repo.findUser(actor.accountId, String(id).slice(0, 100));
  if (!user) throw notFound('user', String(id).slice(0, 100));
  const before = {
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    roles: user.roles,
    orgId: user.orgId ?? null,
    disabled: Boolean(user.disabled),
  };
  const after = applyJsonPatch(before, operations, PATCH_RULES);
  const input: UpdateUserInput = {};
  for (const f of PATCH_FIELDS) {
    const v = after[f] === undefined ? null : after[f];
    if (JSON.stringify(v) === JSON.stringify(before[f])) continue;
    if (f === 'roles' && v !== null && !(Array.isArray(v) && v.every((r) => typeof r === 'string')))
      throw new AppError('BAD_USER_INPUT', 'roles must be a list of role names', { field: 'roles' });
    else if (f === 'disabled' && v !== null && typeof v !== 'boolean')
      throw new AppError('BAD_USER_INPUT', 'disabled must be true or false', { field: 'disabled' });
    else if (f !== 'roles' && f !== 'disabled' && v !== null && typeof v !== 'string')
      throw new AppError('BAD_USER_INPUT', `${f} must be a string or null`, { field: f });
    (input as Record<string, unknown>)[f] = v;
  }
  return updateUser(deps, actor, user.id, input);
}
