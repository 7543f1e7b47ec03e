import type { Principal } from '@pylon/kit';
import { MUTATION_POLICIES, RESOURCES } from '../domain/mutations.js';
import { isAdministrator } from '../domain/roles.js';

/** The permissions record, computed from the same policy table the subgraphs enforce. */
export function permissionsOf(p: Principal) {
  const has = (policy: string | undefined) => policy !== undefined && (p.policies as string[]).includes(policy);
  const mutations = Object.keys(MUTATION_POLICIES).sort();
  return {
    isAdministrator: isAdministrator(p.roles),
    permissions: RESOURCES.map((r) => ({ resource: r.resource, canView: has(r.view), canEdit: has(r.edit), canDelete: has(r.delete) })),
    allowedMutations: mutations.filter((m) => has(MUTATION_POLICIES[m])),
    deniedMutations: mutations.filter((m) => !has(MUTATION_POLICIES[m])),
  };
}
