import { POLICIES, type Policy } from '@pylon/kit';

/** Main roles, strongest first. API is a separate role that allows programmatic access. */
export const ROLES = ['Owner', 'Administrator', 'Manager', 'Editor', 'Viewer'] as const;
export type Role = (typeof ROLES)[number];
export const API_ROLE = 'API';

const view = (r: string) => `${r}_View` as Policy;
const edit = (r: string) => `${r}_Edit` as Policy;
const del = (r: string) => `${r}_Delete` as Policy;
const CONTENT = ['Devices', 'Files', 'Playlists', 'Templates', 'Schedules', 'DataTables'];

const ROLE_POLICIES: Record<Role, readonly Policy[]> = {
  Owner: POLICIES,
  Administrator: POLICIES.filter((p) => p !== 'AuditEventsOwnerOnly'),
  Manager: [...CONTENT.flatMap((r) => [view(r), edit(r), del(r)]), 'Alerts_View', 'Analytics_View'],
  Editor: [...CONTENT.flatMap((r) => [view(r), edit(r)]), 'Alerts_View', 'Analytics_View'],
  Viewer: [...CONTENT.map(view), 'Alerts_View', 'Analytics_View'],
};

export const isRole = (r: string): r is Role => (ROLES as readonly string[]).includes(r);

/** Union of the policies of the given roles (unknown role names grant nothing). */
export function policiesFor(roles: readonly string[]): Policy[] {
  const set = new Set<Policy>();
  for (const r of roles) if (isRole(r)) for (const p of ROLE_POLICIES[r]) set.add(p);
  return POLICIES.filter((p) => set.has(p));
}

/** The role shown as User.role: the strongest main role held. */
export function mainRole(roles: readonly string[]): string {
  return ROLES.find((r) => roles.includes(r)) ?? roles.find((r) => r !== API_ROLE) ?? 'Viewer';
}

export const isAdministrator = (roles: readonly string[]) => roles.includes('Owner') || roles.includes('Administrator');
