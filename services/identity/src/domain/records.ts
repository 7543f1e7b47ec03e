import type { CollectionSpec } from '@pylon/kit';

export interface AccountRecord {
  name: string;
  businessName: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
  phone: string | null;
  fax: string | null;
  primaryContactId: string | null;
  secondaryContactId: string | null;
  /** IANA zone name. */
  timezone: string;
}

export interface UserRecord {
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  username: string;
  /** Lower-cased username: unique across all accounts (it is a login name). */
  usernameKey: string;
  roles: string[];
  lastActivity: string | null;
}

export interface ApiKeyRecord {
  userId: string;
  name: string;
  /** SHA-256 (hex) of the key; the key itself is never stored. */
  hash: string;
  /** First characters of the key, shown in listings so a holder can tell keys apart. */
  prefix: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export const ACCOUNTS: CollectionSpec = { name: 'accounts' };
export const USERS: CollectionSpec = {
  name: 'users',
  uniqueIndexes: [{ name: 'usernameKey', fields: ['usernameKey'], scope: 'global' }],
};
export const API_KEYS: CollectionSpec = {
  name: 'apiKeys',
  uniqueIndexes: [{ name: 'hash', fields: ['hash'], scope: 'global' }],
};
