/**
 * DataTableDirectory over the datatables process's internal route (distributed mode):
 * POST {DATATABLES_URL}/internal/datatables/existing, signed as an internal caller of the account
 * holding DataTables_View only, so datatables answers from that account's tables and nothing else.
 */
import { AppError, INTERNAL_TOKEN_HEADER, servicePrincipal, type InternalTokens } from '@pylon/kit';
import type { DataTableDirectory } from '../ports/data-table-directory.js';

const tableReader = (accountId: string) => servicePrincipal(accountId, 'template-check', 'template check', ['DataTables_View']);

export function createHttpDataTableDirectory(o: { datatablesUrl: string; tokens: InternalTokens; timeoutMs?: number }): DataTableDirectory {
  const url = new URL('/internal/datatables/existing', o.datatablesUrl).toString();
  return {
    async existing(accountId, ids) {
      if (ids.length === 0) return new Set();
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(tableReader(accountId)) },
        body: JSON.stringify({ ids }),
        signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
      }).catch(() => null);
      const body = res?.ok ? ((await res.json().catch(() => null)) as { ids?: unknown } | null) : null;
      if (!body || !Array.isArray(body.ids)) throw new AppError('UNAVAILABLE', 'data tables could not be looked up now; retry');
      return new Set(body.ids.filter((id): id is string => typeof id === 'string'));
    },
  };
}
