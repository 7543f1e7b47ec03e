import { AppError } from '../errors.js';
import type { Policy } from './policies.js';
import type { Principal } from './principal.js';

/**
 * What an operation requires: one of the spec's policies, 'Administrator' (an account owner or
 * administrator: account settings, users, API keys, which the spec's policy table does not name),
 * or just 'Authenticated' (permissions, account, organizations).
 */
export type AccessRule = Policy | 'Administrator' | 'Authenticated';

/** A rule, or several that must all hold (e.g. an alert change needs Alerts_View and Devices_Edit). */
export type Requirement = AccessRule | readonly AccessRule[];
const isAllOf = (r: Requirement): r is readonly AccessRule[] => Array.isArray(r);

/** The roles that administer an account (settings, users, API keys). */
export const ADMINISTRATOR_ROLES: readonly string[] = ['Owner', 'Administrator'];

export function allows(p: Pick<Principal, 'policies' | 'roles'>, rule: Requirement | undefined): boolean {
  if (rule === undefined) return false;
  if (isAllOf(rule)) return rule.every((r) => allows(p, r));
  if (rule === 'Authenticated') return true;
  if (rule === 'Administrator') return p.roles.some((r) => ADMINISTRATOR_ROLES.includes(r));
  return p.policies.includes(rule);
}

/** Throws FORBIDDEN unless the principal satisfies the rule. */
export function requireRule(p: Pick<Principal, 'policies' | 'roles'>, requirement: Requirement): void {
  if (allows(p, requirement)) return;
  const rule = isAllOf(requirement) ? requirement.find((r) => !allows(p, r))! : requirement;
  throw new AppError(
    'FORBIDDEN',
    rule === 'Administrator' ? 'this operation requires an account owner or administrator' : `this operation requires the ${rule} policy`,
  );
}
