import { allows, MUTATION_RULES, RESOURCES, type MutationName, type Principal, type Requirement } from '@pylon/kit';
import { isAdministrator } from '../../domain/roles.js';

/** The permissions record, computed from the same rule table (kit's operation-rules) the subgraphs enforce. */
export function permissionsOf(p: Principal) {
  const mutations = (Object.keys(MUTATION_RULES) as MutationName[]).sort();
  const has = (rule: Requirement | undefined) => allows(p, rule);
  return {
    isAdministrator: isAdministrator(p.roles),
    permissions: RESOURCES.map((r) => ({ resource: r.resource, canView: has(r.view), canEdit: has(r.edit), canDelete: has(r.delete) })),
    allowedMutations: mutations.filter((m) => has(MUTATION_RULES[m])),
    deniedMutations: mutations.filter((m) => !has(MUTATION_RULES[m])),
  };
}
