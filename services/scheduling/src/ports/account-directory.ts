import type { Principal } from '@pylon/kit';

/**
 * The caller's account, as the identity subgraph knows it: its time zone (the fallback for devices
 * without one) and its organizations. In-process in the all-in-one, over identity's GraphQL when
 * distributed.
 */
export interface AccountDirectory {
  /** The account's IANA time zone. */
  timeZone(caller: Principal): Promise<string>;
  /** True when `orgId` names an organization of the caller's account. */
  hasOrganization(caller: Principal, orgId: string): Promise<boolean>;
}
