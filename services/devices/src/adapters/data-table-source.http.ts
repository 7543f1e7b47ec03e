/**
 * DataTableSource over the datatables process's internal route (distributed mode):
 * GET {DATATABLES_URL}/internal/datatables/{tableId}/player-rows, signed as the device itself
 * (kit's devicePrincipal), so datatables answers from the device's account only. 404 -> null; the
 * datatables process down or failing -> UNAVAILABLE (the screen keeps what it shows and retries).
 */
import { AppError, devicePrincipal, INTERNAL_TOKEN_HEADER, type InternalTokens } from '@pylon/kit';
import type { DataTableSource } from '../ports/data-table-source.js';

export function createHttpDataTableSource(o: { datatablesUrl: string; tokens: InternalTokens; timeoutMs?: number }): DataTableSource {
  return {
    async rows(device, tableId) {
      const url = new URL(`/internal/datatables/${encodeURIComponent(tableId)}/player-rows`, o.datatablesUrl);
      const res = await fetch(url, {
        headers: { [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(devicePrincipal(device.accountId, device.id)) },
        signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
      }).catch(() => null);
      if (res?.status === 404) return null;
      const body = res?.ok ? ((await res.json().catch(() => null)) as Record<string, unknown> | null) : null;
      const etag = res?.headers.get('etag');
      if (!body || !etag) throw new AppError('UNAVAILABLE', 'data-table rows could not be read now; retry');
      return { etag, body };
    },
  };
}
