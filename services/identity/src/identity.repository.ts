import { notFound, type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import {
  ACCOUNTS,
  API_KEYS,
  KEY_REVOCATIONS,
  ORGANIZATIONS,
  USERS,
  type AccountRecord,
  type ApiKeyRecord,
  type KeyRevocationRecord,
  type OrganizationRecord,
  type UserRecord,
} from './domain/records.js';

export type Account = Stored<AccountRecord>;
export type Organization = Stored<OrganizationRecord>;
export type User = Stored<UserRecord>;
export type ApiKey = Stored<ApiKeyRecord>;

/** Accounts, organizations, users and API keys over the documents port. An account is its own tenant. */
export class IdentityRepository {
  readonly accounts: Collection<AccountRecord>;
  readonly organizations: Collection<OrganizationRecord>;
  readonly users: Collection<UserRecord>;
  readonly apiKeys: Collection<ApiKeyRecord>;
  readonly revocations: Collection<KeyRevocationRecord>;

  constructor(readonly store: DocumentStore) {
    this.accounts = store.collection<AccountRecord>(ACCOUNTS);
    this.organizations = store.collection<OrganizationRecord>(ORGANIZATIONS);
    this.users = store.collection<UserRecord>(USERS);
    this.apiKeys = store.collection<ApiKeyRecord>(API_KEYS);
    this.revocations = store.collection<KeyRevocationRecord>(KEY_REVOCATIONS);
  }

  async getAccount(accountId: string): Promise<Account> {
    const a = await this.accounts.findById(accountId, accountId);
    if (!a) throw notFound('account', accountId);
    return a;
  }

  async getUser(accountId: string, userId: string): Promise<User> {
    const u = await this.users.findById(accountId, userId);
    if (!u) throw notFound('user', userId);
    return u;
  }

  /** A user by sign-in name, in whatever account (usernames are unique across accounts). */
  findUserByUsername(username: string): Promise<User | null> {
    return this.users.findByUnique('usernameKey', [username.trim().toLowerCase()]);
  }

  /** Any account at all? Used to decide whether to seed demo data. */
  async anyAccount(tenantHint: string): Promise<boolean> {
    return (await this.accounts.count(tenantHint)) > 0;
  }
}
