import type { Collection, DocumentStore, Filter, FindOptions, Stored } from '@pylon/kit';
import { DATA_TABLES } from './domain/collections.js';
import type { DataTableRecord } from './domain/data-table.js';

export type DataTable = Stored<DataTableRecord>;

/** Data table definitions of one account, over the documents port. */
export class DataTableRepository {
  readonly tables: Collection<DataTableRecord>;

  constructor(store: DocumentStore) {
    this.tables = store.collection<DataTableRecord>(DATA_TABLES);
  }

  findTables(tenant: string, filter: Filter, options: FindOptions): Promise<DataTable[]> {
    return this.tables.find(tenant, filter, options);
  }

  getTable(tenant: string, id: string): Promise<DataTable | null> {
    return this.tables.findById(tenant, id);
  }
}
