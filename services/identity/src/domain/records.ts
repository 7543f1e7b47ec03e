import type { CollectionSpec } from '@pylon/kit';

/** The postal address and telephone numbers an account and its organizations carry alike. */
export interface PostalAddress {
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
  phone: string | null;
  fax: string | null;
}

export interface AccountRecord extends PostalAddress {
  name: string;
  businessName: string | null;
  primaryContactId: string | null;
  secondaryContactId: string | null;
  /** IANA zone name. */
  timezone: string;
}

/** A part of an account (a branch, a region); devices, media and schedules carry an orgId. */
export interface OrganizationRecord extends PostalAddress {
  name: string;
  /** IANA zone name. */
  timezone: string | null;
  /** BCP 47 language tag, e.g. en-US. */
  languageCode: string | null;
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
  /** The organization the user belongs to, if any. */
  orgId?: string | null;
  /** scrypt hash of the sign-in password (kit-independent format, see domain/passwords.ts); absent: no sign-in. */
  passwordHash?: string | null;
  /** Off-boarded: no sign-in, no token refresh, no API key (absent on users stored before it existed: enabled). */
  disabled?: boolean;
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

/** One revoked key, for every process that caches principals to forget it (see use-cases/revocations.ts). */
export interface KeyRevocationRecord {
  hash: string;
}

/** The tenant that holds records belonging to no account (revocation events, OAuth state). */
export const SYSTEM_TENANT = '_system';

export const ACCOUNTS: CollectionSpec = { name: 'accounts' };
export const ORGANIZATIONS: CollectionSpec = { name: 'organizations' };
export const USERS: CollectionSpec = {
  name: 'users',
  uniqueIndexes: [{ name: 'usernameKey', fields: ['usernameKey'], scope: 'global' }],
};
export const API_KEYS: CollectionSpec = {
  name: 'apiKeys',
  uniqueIndexes: [{ name: 'hash', fields: ['hash'], scope: 'global' }],
};
export const KEY_REVOCATIONS: CollectionSpec = { name: 'keyRevocations' };

/** A webhook endpoint of an account (identity's webhooks/); secrets sign deliveries and are never read back. */
export interface WebhookEndpointRecord {
  url: string;
  description: string | null;
  /** Catalogue type names; empty: every type. */
  eventTypes: string[];
  deviceIds: string[];
  deviceGroupId: string | null;
  tag: string | null;
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  /** When deliveries started failing without a success since (null while healthy). */
  failingSince: string | null;
  /** whsec_... ; the current one first. A previous one signs beside it until its expiry. */
  secrets: { secret: string; expiresAt: string | null }[];
}

/** One event for one endpoint: its attempts, and when the next is due (the worker's queue and the delivery log). */
export interface WebhookDeliveryRecord {
  endpointId: string;
  eventId: string;
  eventType: string;
  eventTimestamp: string;
  /** The event as delivered (kit PushEvent). */
  event: unknown;
  /** PENDING | SUCCEEDED | FAILED (retries left) | DEAD */
  status: string;
  attempts: { at: string; statusCode: number | null; latencyMs: number; responseExcerpt: string | null }[];
  nextAttemptAt: string | null;
  /** A worker's claim on the next attempt: no other worker attempts it before leaseUntil. */
  leaseUntil: string | null;
  leaseOwner: string | null;
  /**
   * When a worker should look at it next (epoch ms): the next attempt, or the end of a lease; absent
   * once it SUCCEEDED or is DEAD. The sparse `due` index over it is what a delivery round reads.
   */
  dueAt?: number;
}

export const WEBHOOK_ENDPOINTS: CollectionSpec = { name: 'webhookEndpoints' };
export const WEBHOOK_DELIVERIES: CollectionSpec = {
  name: 'webhookDeliveries',
  indexes: [
    { name: 'byEndpoint', fields: ['endpointId', 'createdAt'] },
    // Only waiting deliveries carry dueAt: a round walks the due ones and stops past now.
    { name: 'due', fields: ['dueAt'], sparse: true },
  ],
};
/** Accounts with webhook endpoints (system tenant): the ones the delivery worker visits. */
export const WEBHOOK_ACCOUNTS: CollectionSpec = { name: 'webhookAccounts' };

/** The readable log of push events (the live stream resumes from it): kept 24 h. */
export interface PushEventLogRecord {
  /** Append order: `<ms, 15 digits>-<counter, 9 digits>`, assigned by the log writer. */
  seq: string;
  type: string;
  deviceId: string | null;
  event: unknown;
}
export const PUSH_EVENT_LOG: CollectionSpec = { name: 'pushEventLog', indexes: [{ name: 'bySeq', fields: ['seq'] }] };
