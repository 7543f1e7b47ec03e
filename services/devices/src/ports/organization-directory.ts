import type { Principal } from '@pylon/kit';

/**
 * Which organizations an account has. Organizations belong to the identity service; devices only
 * asks whether an `orgId` a caller passes is one of the caller's own (never another account's).
 * In-process in the all-in-one (identity's repository), over identity's GraphQL when distributed.
 */
export interface OrganizationDirectory {
  /** True when `orgId` names an organization of `caller`'s account. */
  belongsTo(caller: Principal, orgId: string): Promise<boolean>;
}
