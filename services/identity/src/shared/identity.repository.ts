import {
  derivedBooleanField,
  listFilter,
  listQuery,
  notFound,
  orderToSort,
  storedFields,
  type Collection,
  type DocumentStore,
  type FieldMap,
  type Filter,
  type ListArgs,
  type Stored,
} from '@pylon/kit';
import {
  ACCOUNTS,
  API_KEYS,
  KEY_REVOCATIONS,
  ORGANIZATIONS,
  SYSTEM_TENANT,
  USERS,
  type AccountRecord,
  type ApiKeyRecord,
  type KeyRevocationRecord,
  type OrganizationRecord,
  type UserRecord,
} from '../domain/records.js';

export type Account = Stored<AccountRecord>;
export type Organization = Stored<OrganizationRecord>;
export type User = Stored<UserRecord>;
export type ApiKey = Stored<ApiKeyRecord>;

/**
 * How the GraphQL where/order fields of User map onto stored user documents. `role` is derived
 * from `roles` (the strongest one), so it is filtered through `roles` instead.
 */
export const USER_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'firstName', 'lastName', 'email', 'username', 'orgId']),
  roles: { path: 'roles', kind: 'stringList' },
  lastActivity: { path: 'lastActivity', kind: 'date' },
  createdOn: { path: 'createdAt', kind: 'date' },
};

/**
 * Accounts, organizations, users, API keys and key revocations over the documents port, sealed:
 * use cases call intent-named methods, never the collections' operators. An account is its own
 * tenant. The raw collections stay readable for this file and for test seeding only.
 */
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

  // -- accounts and organizations --------------------------------------------------------------

  addAccount(accountId: string, record: AccountRecord): Promise<Account> {
    return this.accounts.insert(accountId, { id: accountId, ...record });
  }

  /** Writes the given account fields; null when the account is gone. */
  changeAccount(accountId: string, fields: Partial<AccountRecord>): Promise<Account | null> {
    return this.accounts.update(accountId, accountId, { $set: fields });
  }

  addOrganization(accountId: string, record: OrganizationRecord): Promise<Organization> {
    return this.organizations.insert(accountId, record);
  }

  /** One of the account's organizations, or null (a foreign id reads like an unknown one). */
  findOrganization(accountId: string, id: string): Promise<Organization | null> {
    return this.organizations.findById(accountId, id);
  }

  /** The account's organizations, these ids only when given, filtered by `where`, sorted by `order` then by name. */
  async listOrganizations(
    accountId: string,
    ids: readonly string[] | null,
    limit: number,
    list: { where?: unknown; order?: unknown } = {},
  ): Promise<Organization[]> {
    const { filter, options } = listQuery({ ...list, limit }, ORGANIZATION_FIELDS, { anyOf: { id: ids }, fallbackSort: { name: 1, id: 1 } });
    return this.organizations.find(accountId, filter, options);
  }

  // -- users ---------------------------------------------------------------------------------------

  addUser(accountId: string, record: UserRecord & { id?: string }): Promise<User> {
    return this.users.insert(accountId, record);
  }

  /** One of the account's users, or null. */
  findUser(accountId: string, userId: string): Promise<User | null> {
    return this.users.findById(accountId, userId);
  }

  /** These users of the account (unknown ids are left out). */
  usersByIds(accountId: string, ids: readonly string[]): Promise<User[]> {
    return this.users.find(accountId, { id: { $in: [...ids] } });
  }

  /** The account's users by username: these ids and this organization only, when given. */
  listUsers(accountId: string, o: { ids?: readonly string[] | null; orgId?: string | null; limit?: number; skip?: number } = {}): Promise<User[]> {
    const filter: Filter = {};
    if (o.ids) filter.id = { $in: [...o.ids] };
    if (o.orgId) filter.orgId = o.orgId;
    return this.users.find(accountId, filter, {
      sort: { username: 1 },
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      ...(o.skip ? { skip: o.skip } : {}),
    });
  }

  /**
   * The GraphQL `user` listing: these ids and this organization only, when given, AND `where`
   * (USER_FIELDS); sorted by `order`, then username and id; `offset` skipped; at most `limit`
   * (default 100, at most 1000). Bad fields, operators or limits are BAD_USER_INPUT naming them.
   */
  async searchUsers(accountId: string, q: UserSearch): Promise<User[]> {
    const { filter, options } = userListing(q);
    return this.users.find(accountId, filter, options);
  }

  /** How many users `searchUsers` would return with the same filters, without limit or offset (counted by the store). */
  countUsers(accountId: string, q: UserSearch): Promise<number> {
    return this.users.count(accountId, userListing({ ...q, limit: null, offset: null, order: null }).filter);
  }

  /** Writes the given user fields; null when the user is gone. */
  changeUser(
    accountId: string,
    userId: string,
    fields: Partial<Pick<UserRecord, 'firstName' | 'lastName' | 'email' | 'roles' | 'orgId' | 'disabled'>>,
  ): Promise<User | null> {
    return this.users.update(accountId, userId, { $set: fields });
  }

  /** How many users of the account hold the Owner role and are not disabled. */
  countEnabledOwners(accountId: string): Promise<number> {
    return this.users.count(accountId, { roles: { $elemMatch: { $eq: 'Owner' } }, disabled: { $ne: true } });
  }

  /** Sets (or with null removes) the user's password hash. */
  setPasswordHash(accountId: string, userId: string, passwordHash: string | null): Promise<User | null> {
    return this.users.update(accountId, userId, { $set: { passwordHash } });
  }

  /** Records that the user was active (throttled by the caller). */
  markActive(user: Pick<User, 'accountId' | 'id'>, at: string): Promise<User | null> {
    return this.users.update(user.accountId, user.id, { $set: { lastActivity: at } });
  }

  // -- API keys --------------------------------------------------------------------------------

  addApiKey(accountId: string, record: ApiKeyRecord): Promise<ApiKey> {
    return this.apiKeys.insert(accountId, record);
  }

  findApiKey(accountId: string, id: string): Promise<ApiKey | null> {
    return this.apiKeys.findById(accountId, id);
  }

  /** The key with this SHA-256 hash, in whatever account (the hash index is global). */
  apiKeyByHash(hash: string): Promise<ApiKey | null> {
    return this.apiKeys.findByUnique('hash', [hash]);
  }

  /**
   * The account's keys, newest first unless `order` says otherwise: of one user when given, revoked
   * ones only when asked, filtered by `where` (isActive as of `nowIso`).
   */
  async listApiKeys(
    accountId: string,
    o: { userId?: string | null; includeRevoked?: boolean | null; where?: unknown; order?: unknown; nowIso?: string },
  ): Promise<ApiKey[]> {
    const clauses: Filter[] = [];
    if (o.userId) clauses.push({ userId: o.userId });
    if (!o.includeRevoked) clauses.push({ revokedAt: null });
    const fields = apiKeyFields(o.nowIso ?? new Date().toISOString());
    // No limit: every key of the account (listQuery would cut at the default list limit).
    return this.apiKeys.find(accountId, listFilter(o.where, fields, { clauses }), { sort: orderToSort(o.order, fields, { createdAt: -1 }) });
  }

  /** Marks the key revoked at `at`; null when it is gone. */
  revokeApiKey(accountId: string, id: string, at: string): Promise<ApiKey | null> {
    return this.apiKeys.update(accountId, id, { $set: { revokedAt: at } });
  }

  // -- key revocation events (what other processes poll) ---------------------------------------

  addRevocation(hash: string): Promise<Stored<KeyRevocationRecord>> {
    return this.revocations.insert(SYSTEM_TENANT, { hash });
  }

  /** Revocation events recorded at or after `since` (ISO), oldest first. */
  revocationsSince(since: string): Promise<Stored<KeyRevocationRecord>[]> {
    return this.revocations.find(SYSTEM_TENANT, { createdAt: { $gte: since } }, { sort: { createdAt: 1 } });
  }

  /** Deletes up to `limit` revocation events recorded before `before` (ISO); how many went. */
  async pruneRevocations(before: string, limit: number): Promise<number> {
    const old = await this.revocations.find(SYSTEM_TENANT, { createdAt: { $lt: before } }, { limit });
    for (const e of old) await this.revocations.delete(SYSTEM_TENANT, e.id);
    return old.length;
  }
}

/** What a user listing asks for (GraphQL user / REST GET /users). */
type UserSearch = ListArgs & { id?: readonly string[] | null; orgId?: string | null };

/** The store filter and options of a user search (argument filters AND where, by username). */
/** How the GraphQL where/order fields of Organization map onto stored organizations. */
export const ORGANIZATION_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name', 'address1', 'address2', 'city', 'state', 'postalCode', 'country', 'phone', 'fax', 'timezone', 'languageCode']),
  createdOn: { path: 'createdAt', kind: 'date' },
};

/** The API key fields stored as they are (built once per process, not per listing). */
const STORED_API_KEY_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name', 'prefix', 'userId']),
  ...storedFields('date', ['expiresAt', 'revokedAt']),
};

/** How the GraphQL where/order fields of ApiKey map onto stored keys (never the hash); isActive as of `nowIso`. */
export function apiKeyFields(nowIso: string): FieldMap {
  return {
    ...STORED_API_KEY_FIELDS,
    createdOn: { path: 'createdAt', kind: 'date' },
    // Neither revoked nor expired (resolvers.ts ApiKey.isActive).
    isActive: derivedBooleanField((active) =>
      active
        ? { $and: [{ revokedAt: null }, { $or: [{ expiresAt: null }, { expiresAt: { $gt: nowIso } }] }] }
        : { $or: [{ revokedAt: { $ne: null } }, { expiresAt: { $lte: nowIso } }] },
    ),
  };
}

function userListing(q: UserSearch): ReturnType<typeof listQuery> {
  return listQuery(q, USER_FIELDS, { anyOf: { id: q.id }, clauses: q.orgId ? [{ orgId: q.orgId }] : [], fallbackSort: { username: 1, id: 1 } });
}
