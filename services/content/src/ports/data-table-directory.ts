/**
 * Which data tables an account has: a template module naming a `dataTableId` (a menu board) must
 * name one of the caller's tables. The datatables service answers (in-process in the all-in-one;
 * adapters/data-table-directory.http.ts in distributed mode).
 */
export interface DataTableDirectory {
  /** The ids among `ids` that name data tables of the account (unknown and other accounts' ids are left out). */
  existing(accountId: string, ids: readonly string[]): Promise<Set<string>>;
}
