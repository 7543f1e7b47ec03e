/**
 * Rows of a data table for a screen's data-table module (menu boards), read as the device's
 * account: the datatables service answers (in-process in the all-in-one; over its internal route,
 * adapters/data-table-source.http.ts, in distributed mode). Without one, the player route is a 503.
 */
import type { ManifestDevice } from './manifest-source.js';

export interface DataTableSource {
  /** The table's visible columns and first rows, with an ETag that changes on every write; null when the account has no such table. */
  rows(device: ManifestDevice, tableId: string): Promise<{ etag: string; body: Record<string, unknown> } | null>;
}
