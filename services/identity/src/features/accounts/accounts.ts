import { AppError, badInput, notFound, type Principal, type PushEvents } from '@pylon/kit';
import { hashPassword, passwordProblem } from '../../domain/passwords.js';
import type { AccountRecord } from '../../domain/records.js';
import { API_ROLE, isRole } from '../../domain/roles.js';
import { checkTimeZone, optionalText, requiredText } from '../../domain/validation.js';
import type { Account, IdentityRepository, User } from '../../shared/identity.repository.js';

export interface CreateAccountInput extends Partial<AccountRecord> {
  name: string;
  id?: string;
}

export async function createAccount(repo: IdentityRepository, input: CreateAccountInput): Promise<Account> {
  const name = requiredText(input.name, 'name');
  const timezone = checkTimeZone(input.timezone ?? 'UTC');
  if (input.id !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(input.id)) throw badInput('id', 'an account id must be 1 to 100 letters, digits or . _ -');
  const id = input.id ?? crypto.randomUUID();
  try {
    return await repo.addAccount(id, {
      name,
      businessName: input.businessName ?? null,
      address1: input.address1 ?? null,
      address2: input.address2 ?? null,
      city: input.city ?? null,
      state: input.state ?? null,
      postalCode: input.postalCode ?? null,
      country: input.country ?? null,
      phone: input.phone ?? null,
      fax: input.fax ?? null,
      primaryContactId: input.primaryContactId ?? null,
      secondaryContactId: input.secondaryContactId ?? null,
      timezone,
    });
  } catch (e) {
    if (e instanceof AppError && e.code === 'DUPLICATE_KEY') throw new AppError('DUPLICATE_KEY', `account '${id}' exists already`, { field: 'id' });
    throw e;
  }
}

/** Fields of the account an administrator may change (id and created_on never change). */
/** Fields to change; absent stays, null clears an optional one (a required one refuses null). */
export type AccountUpdate = { [K in keyof AccountRecord]?: AccountRecord[K] | null };

const TEXT_FIELDS = ['businessName', 'address1', 'address2', 'city', 'state', 'postalCode', 'country', 'phone', 'fax'] as const;

/** Applies the given fields; absent fields stay, null clears an optional one. Contacts must be users of the account. */
export async function updateAccount(repo: IdentityRepository, accountId: string, input: AccountUpdate): Promise<Account> {
  const current = await repo.getAccount(accountId);
  const set: Partial<AccountRecord> = {};
  if (input.name !== undefined) set.name = requiredText(input.name, 'name');
  for (const f of TEXT_FIELDS) {
    const v = optionalText(input[f], f);
    if (v !== undefined) set[f] = v;
  }
  if (input.timezone !== undefined) {
    if (input.timezone === null) throw badInput('timezone', 'timezone may not be null');
    set.timezone = checkTimeZone(input.timezone.trim());
  }
  for (const f of ['primaryContactId', 'secondaryContactId'] as const) {
    const v = optionalText(input[f], f, 100);
    if (v === undefined) continue;
    if (v !== null && !(await repo.findUser(accountId, v))) throw new AppError('BAD_USER_INPUT', `${f} '${v}' is not a user of this account`, { field: f });
    set[f] = v;
  }
  if (Object.keys(set).length === 0) return current;
  const updated = await repo.changeAccount(accountId, set);
  if (!updated) throw notFound('account', accountId);
  return updated;
}

export interface CreateUserInput {
  accountId: string;
  username: string;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  roles: string[];
  orgId?: string | null;
  /** Sign-in password for the OAuth login page; without one the user cannot sign in there. */
  password?: string | null;
  id?: string;
}

/** The distinct known role names given (trimmed); an unknown one is BAD_USER_INPUT on `roles`. */
export function checkRoles(given: readonly string[]): string[] {
  const roles = [...new Set(given.map((r) => r.trim()).filter(Boolean))];
  const unknown = roles.filter((r) => r !== API_ROLE && !isRole(r));
  if (unknown.length) throw badInput('roles', `unknown role(s): ${unknown.join(', ')}; roles are Owner, Administrator, Manager, Editor, Viewer and API`);
  return roles;
}

/** An optional email address (optionalText's undefined / null / trimmed value), refused when it has no `@`. */
export function checkEmail(given: string | null | undefined): string | null | undefined {
  const email = optionalText(given, 'email');
  if (email && !/^[^\s@]+@[^\s@]+$/.test(email)) throw badInput('email', `email '${email}' is not an email address`);
  return email;
}

/** An optional organization id (undefined: not given, null: none), refused unless it is one of the account's. */
export async function checkOrgId(repo: IdentityRepository, accountId: string, given: string | null | undefined): Promise<string | null | undefined> {
  const orgId = optionalText(given, 'orgId', 100);
  if (orgId && !(await repo.findOrganization(accountId, orgId)))
    throw new AppError('BAD_USER_INPUT', `orgId '${orgId}' is not an organization of this account`, { field: 'orgId' });
  return orgId;
}

/** Only an owner may hand out the Owner role (or act for an owner): administrators cannot raise themselves. */
export function assertMayManage(actor: Pick<Principal, 'roles'> | undefined, targetRoles: readonly string[], field = 'roles'): void {
  if (actor && targetRoles.includes('Owner') && !actor.roles.includes('Owner')) {
    throw new AppError('FORBIDDEN', 'only an account owner may manage owners or grant the Owner role', { field });
  }
}

/** Creates a user; `actor` (absent for the admin CLI) must be allowed to grant the roles. */
export async function createUser(repo: IdentityRepository, input: CreateUserInput, actor?: Pick<Principal, 'roles'>, pushEvents?: PushEvents): Promise<User> {
  const username = input.username?.trim();
  if (!username || !/^[A-Za-z0-9._@+-]{2,100}$/.test(username)) {
    throw badInput('username', 'username must be 2 to 100 letters, digits or . _ @ + -');
  }
  const roles = checkRoles(input.roles);
  assertMayManage(actor, roles);
  const email = checkEmail(input.email);
  let passwordHash: string | null = null;
  if (input.password) {
    const problem = passwordProblem(input.password);
    if (problem) throw badInput('password', problem);
    passwordHash = await hashPassword(input.password);
  }
  await repo.getAccount(input.accountId);
  const orgId = (await checkOrgId(repo, input.accountId, input.orgId)) ?? null;
  try {
    const user = await repo.addUser(input.accountId, {
      ...(input.id ? { id: input.id } : {}),
      username,
      usernameKey: username.toLowerCase(),
      firstName: optionalText(input.firstName, 'firstName') ?? null,
      lastName: optionalText(input.lastName, 'lastName') ?? null,
      email: email ?? null,
      roles,
      lastActivity: null,
      orgId,
      passwordHash,
    });
    pushEvents?.emit(input.accountId, 'user.created', { user_id: user.id, email: user.email ?? '' });
    return user;
  } catch (e) {
    if (e instanceof AppError && e.code === 'DUPLICATE_KEY') throw new AppError('DUPLICATE_KEY', `username '${username}' is taken`, { field: 'username' });
    throw e;
  }
}

/** Sets (or, with null, removes) a user's sign-in password. */
export async function setPassword(repo: IdentityRepository, accountId: string, userId: string, password: string | null): Promise<void> {
  await repo.getUser(accountId, userId);
  if (password === null) {
    await repo.setPasswordHash(accountId, userId, null);
    return;
  }
  const problem = passwordProblem(password);
  if (problem) throw badInput('password', problem);
  await repo.setPasswordHash(accountId, userId, await hashPassword(password));
}
