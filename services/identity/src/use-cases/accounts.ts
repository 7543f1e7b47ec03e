import { AppError } from '@pylon/kit';
import type { AccountRecord } from '../domain/records.js';
import { API_ROLE, isRole } from '../domain/roles.js';
import type { Account, IdentityRepository, User } from '../identity.repository.js';

export interface CreateAccountInput extends Partial<AccountRecord> {
  name: string;
  id?: string;
}

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export async function createAccount(repo: IdentityRepository, input: CreateAccountInput): Promise<Account> {
  if (!input.name?.trim()) throw new AppError('BAD_USER_INPUT', 'name is required', { field: 'name' });
  const timezone = input.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) throw new AppError('BAD_USER_INPUT', `timezone '${timezone}' is not a time zone name`, { field: 'timezone' });
  const id = input.id ?? crypto.randomUUID();
  return repo.accounts.insert(id, {
    id,
    name: input.name.trim(),
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
}

export interface CreateUserInput {
  accountId: string;
  username: string;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  roles: string[];
}

export async function createUser(repo: IdentityRepository, input: CreateUserInput): Promise<User> {
  const username = input.username?.trim();
  if (!username || !/^[A-Za-z0-9._@+-]{2,100}$/.test(username)) {
    throw new AppError('BAD_USER_INPUT', 'username must be 2 to 100 letters, digits or . _ @ + -', { field: 'username' });
  }
  const unknown = input.roles.filter((r) => r !== API_ROLE && !isRole(r));
  if (unknown.length) throw new AppError('BAD_USER_INPUT', `unknown role(s): ${unknown.join(', ')}`, { field: 'roles' });
  await repo.getAccount(input.accountId);
  try {
    return await repo.users.insert(input.accountId, {
      username,
      usernameKey: username.toLowerCase(),
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      email: input.email ?? null,
      roles: [...new Set(input.roles)],
      lastActivity: null,
    });
  } catch (e) {
    if (e instanceof AppError && e.code === 'DUPLICATE_KEY') throw new AppError('DUPLICATE_KEY', `username '${username}' is taken`, { field: 'username' });
    throw e;
  }
}
