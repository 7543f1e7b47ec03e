/** OrganizationDirectory over the identity subgraph's GraphQL (distributed mode), as the caller. */
import { AppError, INTERNAL_TOKEN_HEADER, type InternalTokens, type Principal } from '@pylon/kit';
import type { OrganizationDirectory } from '../ports/organization-directory.js';

const QUERY = 'query($id: [String!]) { organizations(id: $id, limit: 1) { id } }';

export function createHttpOrganizationDirectory(o: { identityUrl: string; tokens: InternalTokens; timeoutMs?: number }): OrganizationDirectory {
  const url = new URL('/graphql', o.identityUrl).toString();
  return {
    async belongsTo(caller: Principal, orgId: string): Promise<boolean> {
      // Signed as the caller: identity answers from the caller's account only.
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(caller) },
        body: JSON.stringify({ query: QUERY, variables: { id: [orgId] } }),
        signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
      }).catch(() => null);
      const body = res?.ok ? ((await res.json().catch(() => null)) as { data?: { organizations?: { id: string }[] | null } } | null) : null;
      if (!body?.data) throw new AppError('UNAVAILABLE', 'the organization could not be checked; retry');
      return (body.data.organizations ?? []).some((org) => org.id === orgId);
    },
  };
}
