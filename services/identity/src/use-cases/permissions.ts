import type { Principal } from '@pylon/kit';
import { allows } from '../domain/access.js';
import { MUTATION_RULES, RESOURCES } from '../domain/mutations.js';
import { isAdministrator } from '../domain/roles.js';

/** The permissions record, computed from the same rule table the subgraphs enforce. */
export function permissionsOf(p: Principal) {
  const mutations = Object.keys(MUTATION_RULES).sort();
  const has = (rule: Parameters<typeof allows>[1]) => allows(p, rule);
  return {
    isAdministrator: isAdministrator(p.roles),
    permissions: RESOURCES.map((r) => ({ resource: r.resource, canView: has(r.view), canEdit: has(r.edit), canDelete: has(r.delete) })),
    allowedMutations: mutations.filter((m) => has(MUTATION_RULES[m])),
    deniedMutations: mutations.filter((m) => !has(MUTATION_RULES[m])),
  };
}
