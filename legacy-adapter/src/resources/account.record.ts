/** The legacy account record (spec, "Legacy account record"): exactly these fields, in this order. */
import { isoSeconds, snakeRecord } from '@pylon/kit';
import type { GetAccountQuery } from '@pylon/kit/generated/rest-operations.generated';

/** The `account` selection of getAccount.graphql (generated from the document). */
export type AccountData = NonNullable<GetAccountQuery['account']>;

export interface LegacyAccount {
  name: string;
  business_name: string | null;
  address_1: string | null;
  address_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  phone: string | null;
  fax: string | null;
  primary_contact_id: string | null;
  secondary_contact_id: string | null;
  /** ISO 8601, YYYY-MM-DDTHH:MM:SSZ. */
  created_on: string | null;
  /** IANA time zone name. */
  timezone: string;
}

export const LEGACY_ACCOUNT_FIELDS = [
  'name',
  'business_name',
  'address_1',
  'address_2',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
  'fax',
  'primary_contact_id',
  'secondary_contact_id',
  'created_on',
  'timezone',
] as const satisfies readonly (keyof LegacyAccount)[];

export function toLegacyAccount(a: AccountData): LegacyAccount {
  // Same case conversion as the REST record (kit snakeKeys, address1 -> address_1); the list fixes the order.
  const record = snakeRecord(a, LEGACY_ACCOUNT_FIELDS) as LegacyAccount;
  return { ...record, created_on: isoSeconds(a.createdOn) };
}
