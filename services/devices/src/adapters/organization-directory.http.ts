/** OrganizationDirectory over the identity subgraph's GraphQL (distributed mode), as the caller. */
import { querySubgraphAs, type InternalTokens, type Principal } from '@pylon/kit';
import type { OrganizationDirectory } from '../ports/organization-directory.js';

const QUERY = 'query($id: [String!]) { organizations(id: $id, limit: 1) { id } }';

export function createHttpOrganizationDirectory(o: { identityUrl: string; tokens: InternalTokens; timeoutMs?: number }): OrganizationDirectory {
  const target = { ...o, url: o.identityUrl };
  return {
    async belongsTo(caller: Principal, orgId: string): Promise<boolean> {
      // Signed as the caller: identity answers from the caller's account only.
      const data = await querySubgraphAs<{ organizations?: { id: string }[] | null }>(target, caller, QUERY, { id: [orgId] }, 'the organization');
      return (data.organizations ?? []).some((org) => org.id === orgId);
    },
  };
}
