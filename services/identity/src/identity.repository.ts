import { notFound, type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import { ACCOUNTS, API_KEYS, USERS, type AccountRecord, type ApiKeyRecord, type UserRecord } from './domain/records.js';

export type Account = Stored<AccountRecord>;
export type User = Stored<UserRecord>;
export type ApiKey = Stored<ApiKeyRecord>;

/** Accounts, users and API keys over the documents port. An account is its own tenant. */
export class IdentityRepository {
  readonly accounts: Collection<AccountRecord>;
  readonly users: Collection<UserRecord>;
  readonly apiKeys: Collection<ApiKeyRecord>;

  constructor(store: DocumentStore) {
    this.accounts = store.collection<AccountRecord>(ACCOUNTS);
    this.users = store.collection<UserRecord>(USERS);
    this.apiKeys = store.collection<ApiKeyRecord>(API_KEYS);
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

  /** Any account at all? Used to decide whether to seed demo data. */
  async anyAccount(tenantHint: string): Promise<boolean> {
    return (await this.accounts.count(tenantHint)) > 0;
  }
}
