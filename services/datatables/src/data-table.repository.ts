import type { Collection, DocumentStore, Stored } from '@pylon/kit';
import { DATA_TABLES } from './domain/collections.js';
import type { DataTableRecord } from './domain/data-table.js';

export type DataTable = Stored<DataTableRecord>;

/** Data table definitions of one account, over the documents port. */
export class DataTableRepository {
  readonly tables: Collection<DataTableRecord>;

  constructor(store: DocumentStore) {
    this.tables = store.collection<DataTableRecord>(DATA_TABLES);
  }

  /** Up to `limit` tables in (name, id) order, after the given position (keyset paging: no skips or repeats). */
  pageByName(tenant: string, after: { name: string | number; id: string | number } | null, limit: number): Promise<DataTable[]> {
    const filter = after ? { $or: [{ name: { $gt: after.name } }, { name: after.name, id: { $gt: after.id } }] } : {};
    return this.tables.find(tenant, filter, { sort: { name: 1, id: 1 }, limit });
  }

  getTable(tenant: string, id: string): Promise<DataTable | null> {
    return this.tables.findById(tenant, id);
  }
}
